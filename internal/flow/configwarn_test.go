package flow_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestConfigureWarningsReachCargo: a message(WARNING ...) in the MLX
// source's CMakeLists.txt, which a configure that succeeds left in its log
// alone, is one warning line (file:line: first sentence) on stderr and a
// cargo:warning= line under build:cargo.
func TestConfigureWarningsReachCargo(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	lists := filepath.Join(p.Mlx, "CMakeLists.txt")
	src, err := os.ReadFile(lists)
	if err != nil {
		t.Fatal(err)
	}
	body := string(src) + "message(WARNING \"The stand-in fork has no tuned kernels for this GPU.  It runs the generic ones, which are slower.\")\n"
	testutil.WriteFile(t, lists, body)
	line := strings.Count(body, "\n")
	env := map[string]string{"NUM_JOBS": "2", "MLXBUILD_CACHE": p.Cache}
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Env: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr}
	if _, err := flow.BuildForCargo(context.Background(), o); err != nil {
		t.Fatalf("build:cargo: %v\n%s", err, stderr.String())
	}
	want := fmt.Sprintf("%s:%d: The stand-in fork has no tuned kernels for this GPU.", lists, line)
	if !strings.Contains(stdout.String(), "cargo:warning="+want+"\n") {
		t.Errorf("stdout lacks cargo:warning=%s:\n%s", want, stdout.String())
	}
	if !strings.Contains(stderr.String(), "warning: "+want+"\n") {
		t.Errorf("stderr lacks the warning %q:\n%s", want, stderr.String())
	}
}

// TestCargoFailureFirstError: a compile error in the MLX source fails
// build:cargo with a cargo:warning= line, which Cargo prints above the
// script's whole output: the compiler's first error with file:line, and
// where the full log is.
func TestCargoFailureFirstError(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	ops := filepath.Join(p.Mlx, "mlx", "version.cpp")
	src, err := os.ReadFile(ops)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, ops, string(src)+"int broken = missing_name;\n")
	line := strings.Count(string(src), "\n") + 1
	env := map[string]string{"NUM_JOBS": "2", "MLXBUILD_CACHE": p.Cache}
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Env: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr}
	if _, err := flow.BuildForCargo(context.Background(), o); err == nil {
		t.Fatalf("build:cargo of a broken source succeeded:\n%s", stderr.String())
	}
	var warning string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "cargo:warning=error: ") {
			warning = l
		}
	}
	tree := filepath.Join(p.Cache, "cpu", "tree", "mlx", "version.cpp")
	for _, want := range []string{fmt.Sprintf("%s:%d:", tree, line), "missing_name", "full log: " + filepath.Join(p.Cache, "cpu", "build.log")} {
		if !strings.Contains(warning, want) {
			t.Errorf("the cargo:warning= line of the failure lacks %q:\n%s", want, stdout.String())
		}
	}
}
