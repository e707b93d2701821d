package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuildForCargo is build:cargo as a build script runs it: no feature
// builds cpu and prints exactly cargo.txt on stdout; NUM_JOBS caps the jobs
// when MLXBUILD_JOBS is unset; two GPU features are refused with exit 2 and
// the selection's message, naming both features, before anything is built.
func TestBuildForCargo(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	t.Setenv("MLXBUILD_JOBS", "")
	env := map[string]string{"NUM_JOBS": "1", "MLXBUILD_CACHE": p.Cache}
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Env: func(k string) string { return env[k] }, Stdout: &stdout, Stderr: &stderr}
	sum, err := flow.BuildForCargo(context.Background(), o)
	if err != nil {
		t.Fatalf("build:cargo: %v\n%s", err, stderr.String())
	}
	if sum.Backend != "cpu" {
		t.Errorf("no Cargo feature built %s, want cpu", sum.Backend)
	}
	if !strings.Contains(stderr.String(), "build with 1 job\n") {
		t.Errorf("NUM_JOBS=1 did not cap the jobs:\n%s", stderr.String())
	}
	plan, err := os.ReadFile(filepath.Join(p.Cache, "cpu", "out", "cargo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != string(plan) || !strings.Contains(stdout.String(), "cargo:rustc-link-lib=static=mlx\n") {
		t.Errorf("stdout is not cargo.txt:\n%s\n--- cargo.txt\n%s", stdout.String(), plan)
	}
	if !strings.Contains(stdout.String(), "cargo:rerun-if-changed="+p.Mlx+"\n") {
		t.Errorf("cargo.txt does not watch the source.dir checkout %s:\n%s", p.Mlx, stdout.String())
	}

	env["CARGO_FEATURE_ROCM"], env["CARGO_FEATURE_CUDA"] = "1", "1"
	stdout.Reset()
	_, err = flow.BuildForCargo(context.Background(), o)
	if fail.ExitCode(err) != 2 {
		t.Fatalf("rocm and cuda features: %v, want a usage error (exit 2)", err)
	}
	want := "cannot build rocm (requested by CARGO_FEATURE_ROCM) together with cuda (requested by CARGO_FEATURE_CUDA)"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	// Only the error, as the warning Cargo prints first: no directive.
	if got := strings.TrimSuffix(stdout.String(), "\n"); strings.Contains(got, "\n") || !strings.HasPrefix(got, "cargo:warning=error: "+want) {
		t.Errorf("a refused build printed more than its error for Cargo:\n%s", stdout.String())
	}
}

// TestPlanShowsCompile: plan prints the compile section a bridge gets, each
// macro with the spec position it came from, the override's included.
func TestPlanShowsCompile(t *testing.T) {
	testutil.NeedTools(t, "cmake", "hipcc")
	p := newProject(t, "compile:\n  defines:\n    - { name: MLXCEL_BRIDGE_ROCM_BACKEND }\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	var stdout bytes.Buffer
	if err := flow.Plan(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:rocm", "rocm"); err != nil {
		t.Fatalf("plan:rocm: %v", err)
	}
	out := stdout.String()
	for _, want := range []string{
		"compile:   std c++17; include " + filepath.Join(p.Cache, "rocm", "tree") + ", " + filepath.Join(p.Cache, "rocm", "build") + ", /usr/include\n",
		"-DMLXBUILD_BACKEND_ROCM",
		"configs/rocm.yaml:",
		"-DMLXCEL_BRIDGE_ROCM_BACKEND",
		filepath.Join(p.Dir, "rocm.yaml") + ":3:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan:rocm lacks %q:\n%s", want, out)
		}
	}
}
