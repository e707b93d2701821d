package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuildCPU runs build:cpu of the example through the whole flow and
// proves that no file of the ROCm overlay reaches the CPU build: not in the
// tree, not in compile_commands.json, not in the compile log. A C++
// consumer linked with the plan's ldflags.txt runs.
func TestBuildCPU(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	var stdout, stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	if sum.Backend != "cpu" || !sum.Reconfigured || sum.Steps == 0 || sum.Arch != "" {
		t.Errorf("first build: %+v", sum)
	}
	build := filepath.Join(p.Cache, "cpu", "build")

	// The tree is the pristine checkout: nothing of the overlay.
	if _, err := os.Stat(filepath.Join(p.Cache, "cpu", "tree", "mlx", "backend", "rocm")); !os.IsNotExist(err) {
		t.Errorf("the cpu tree has mlx/backend/rocm (%v)", err)
	}

	// Every compiled file, as CMake recorded it, comes from the cpu tree
	// and none is a ROCm overlay file.
	data, err := os.ReadFile(filepath.Join(build, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ File, Command string }
	if err := json.Unmarshal(data, &cmds); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(p.Cache, "cpu", "tree") + string(filepath.Separator)
	var sawCPU bool
	for _, c := range cmds {
		if !strings.HasPrefix(c.File, tree) {
			t.Errorf("compile_commands.json compiles %s, outside the cpu tree %s", c.File, tree)
		}
		if isROCmFile(p, c.File) || isROCmFile(p, c.Command) {
			t.Errorf("the cpu build compiles a ROCm file: %s", c.Command)
		}
		sawCPU = sawCPU || strings.HasSuffix(c.File, "mlx/backend/cpu/binary.cpp")
	}
	if !sawCPU {
		t.Errorf("compile_commands.json has no mlx/backend/cpu/binary.cpp: %d entries", len(cmds))
	}

	// The compile log (what Ninja ran and printed) names no ROCm file.
	log, err := os.ReadFile(sum.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if isROCmFile(p, string(log)) {
		t.Errorf("the cpu compile log %s names a ROCm file:\n%s", sum.LogPath, log)
	}
	if !strings.Contains(string(log), "backend/cpu/binary.cpp") {
		t.Errorf("the cpu compile log %s does not show the compiles:\n%s", sum.LogPath, log)
	}

	// The link plan works for a C++ consumer.
	exe := filepath.Join(t.TempDir(), "consumer")
	args := []string{"-std=c++17", "-I", filepath.Join(p.Cache, "cpu", "tree"),
		filepath.Join(examplesDir, "cxx-consumer", "main.cpp")}
	args = append(append(args, linkArgs(t, filepath.Join(sum.Out, "ldflags.txt"))...), "-o", exe)
	testutil.RunOK(t, nil, "", "c++", args...)
	if out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", exe); !strings.Contains(out, "backend=cpu") || !strings.Contains(out, "mlx_sum = 110") {
		t.Errorf("consumer output:\n%s", out)
	}
}

// isROCmFile reports whether s names a file of the ROCm overlay or the
// ROCm backend directory.
func isROCmFile(p *project, s string) bool {
	return strings.Contains(s, p.Rocm) || strings.Contains(s, "patches-rocm") ||
		strings.Contains(s, "backend/rocm/") || strings.Contains(s, ".hip")
}
