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

// recordingCompilers points CC and CXX at stand-ins that append each
// invocation to the returned log, then run the real compilers.
func recordingCompilers(t *testing.T) (log string) {
	t.Helper()
	env, log := testutil.RecordingCompilers(t)
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	return log
}

// envOver reads env's values over the process's environment.
func envOver(env map[string]string) func(string) string {
	return func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return os.Getenv(name)
	}
}

// TestCargoCheckOnly is build:cargo as an editor or lint job runs it
// (MLXBUILD_CHECK_ONLY=1, DOCS_RS=1): the tree is materialized and the
// compile flags printed with check_only=1 and no link line, and nothing is
// configured or compiled (no compiler started, no CMake cache, no stamp,
// no link plan file); the real build after it still configures and
// compiles everything. An unknown value of the variable is exit 2 naming it.
func TestCargoCheckOnly(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++", "cc")
	p := newProject(t, "")
	log := recordingCompilers(t)
	build := filepath.Join(p.Cache, "cpu", "build")
	for _, mode := range []string{"MLXBUILD_CHECK_ONLY=1", "DOCS_RS=1"} {
		k, v, _ := strings.Cut(mode, "=")
		env := map[string]string{k: v}
		var stdout, stderr bytes.Buffer
		o := flow.Options{Dir: p.Dir, Env: envOver(env), Stdout: &stdout, Stderr: &stderr}
		if _, err := flow.BuildForCargo(context.Background(), o); err != nil {
			t.Fatalf("%s build:cargo: %v\n%s", mode, err, stderr.String())
		}
		out := stdout.String()
		for _, want := range []string{
			"cargo:include=" + filepath.Join(p.Cache, "cpu", "tree") + ":" + build + "\n",
			"cargo:defines=MLXBUILD_BACKEND_CPU\n",
			"cargo:cxx_std=c++17\n",
			"cargo:check_only=1\n",
			"cargo:rustc-env=MLXBUILD_BACKEND=cpu\n",
			"cargo:rerun-if-env-changed=MLXBUILD_CHECK_ONLY\n",
			"cargo:rerun-if-env-changed=DOCS_RS\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", mode, want, out)
			}
		}
		// Every watched path exists: a missing one would make Cargo run
		// the script, and rebuild the crates on it, at every check.
		for _, line := range strings.Split(out, "\n") {
			if path, ok := strings.CutPrefix(line, "cargo:rerun-if-changed="); ok {
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: cargo:rerun-if-changed names a path that does not exist: %v", mode, err)
				}
			}
		}
		if strings.Contains(out, "rustc-link") {
			t.Errorf("%s: a check-only run printed link lines:\n%s", mode, out)
		}
		if _, err := os.Stat(filepath.Join(p.Cache, "cpu", "tree", "mlx", "version.cpp")); err != nil {
			t.Errorf("%s: the tree was not materialized: %v", mode, err)
		}
		for _, made := range []string{filepath.Join(build, "CMakeCache.txt"), filepath.Join(build, "build.ninja"), filepath.Join(build, ".ninja_log"), filepath.Join(p.Cache, "cpu", "stamp.json"), filepath.Join(p.Cache, "cpu", "out", "cargo.txt")} {
			if _, err := os.Stat(made); err == nil {
				t.Errorf("%s: a check-only run made %s", mode, made)
			}
		}
		if calls, err := os.ReadFile(log); err == nil {
			t.Errorf("%s: a check-only run started compilers:\n%s", mode, calls)
		}
		if !strings.Contains(stderr.String(), "check only ("+mode+")") {
			t.Errorf("%s: stderr does not say the run was check-only:\n%s", mode, stderr.String())
		}
	}

	// The real build after them builds everything.
	var stdout, stderr bytes.Buffer
	sum, err := flow.BuildForCargo(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr})
	if err != nil {
		t.Fatalf("build:cargo after check-only runs: %v\n%s", err, stderr.String())
	}
	if !sum.Reconfigured || sum.Steps == 0 || !strings.Contains(stdout.String(), "cargo:rustc-link-lib=static=mlx\n") {
		t.Errorf("the build after check-only runs did not build (reconfigured %v, %d steps):\n%s", sum.Reconfigured, sum.Steps, stdout.String())
	}
	if calls, err := os.ReadFile(log); err != nil || !strings.Contains(string(calls), "CXX ") {
		t.Errorf("the real build compiled nothing with CXX: %v %s", err, calls)
	}

	// An unknown value: exit 2 naming the variable, nothing else for Cargo.
	t.Setenv("MLXBUILD_CHECK_ONLY", "yes")
	stdout.Reset()
	_, err = flow.BuildForCargo(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr})
	if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), `MLXBUILD_CHECK_ONLY="yes"`) {
		t.Fatalf("MLXBUILD_CHECK_ONLY=yes: %v (exit %d), want exit 2 naming it", err, fail.ExitCode(err))
	}
	if got := stdout.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "cargo:warning=error: MLXBUILD_CHECK_ONLY=") {
		t.Errorf("a refused value printed more than its error for Cargo:\n%s", got)
	}
}

// TestCargoCheckOnlyROCmRunsNoTool: a check-only run for ROCm publishes
// the toolchain's include directory without running any of its programs
// (the full discovery asks hipconfig, and hipconfig clang++ --version):
// every program of the root's bin/ here only records that it was run.
func TestCargoCheckOnlyROCmRunsNoTool(t *testing.T) {
	p := newProject(t, "")
	root := filepath.Join(t.TempDir(), "rocm")
	log := filepath.Join(t.TempDir(), "ran")
	testutil.WriteFile(t, filepath.Join(root, "include", "hip", "hip_runtime.h"), "")
	testutil.WriteFile(t, filepath.Join(root, "lib", "libamdhip64.so"), "")
	for _, tool := range []string{"hipconfig", "hipcc", "clang++", "rocminfo"} {
		script := filepath.Join(root, "bin", tool)
		testutil.WriteFile(t, script, "#!/bin/sh\necho \""+tool+" $*\" >> '"+log+"'\nexit 1\n")
		if err := os.Chmod(script, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", filepath.Join(root, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	env := map[string]string{"MLXBUILD_CHECK_ONLY": "1", "CARGO_FEATURE_ROCM": "1", "ROCM_PATH": root, "MLX_ROCM_ARCHITECTURES": "gfx1030"}
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Env: envOver(env), Stdout: &stdout, Stderr: &stderr}
	if _, err := flow.BuildForCargo(context.Background(), o); err != nil {
		t.Fatalf("check-only build:cargo for rocm: %v\n%s", err, stderr.String())
	}
	if ran, err := os.ReadFile(log); err == nil {
		t.Errorf("a check-only run ran the toolchain's programs:\n%s", ran)
	}
	tree := filepath.Join(p.Cache, "rocm", "tree")
	for _, want := range []string{
		"cargo:include=" + tree + ":" + filepath.Join(p.Cache, "rocm", "build") + ":" + filepath.Join(root, "include") + "\n",
		"cargo:rustc-env=MLXBUILD_GPU_ARCHITECTURES=gfx1030\n",
		"cargo:defines=MLXBUILD_BACKEND_ROCM MLXBUILD_GPU_BACKEND __HIP_PLATFORM_AMD__\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	// The overlay is in the tree: the editor sees the ROCm sources.
	if _, err := os.Stat(filepath.Join(tree, "mlx", "backend", "rocm")); err != nil {
		t.Errorf("the ROCm overlay is not in the tree: %v", err)
	}

	env["ROCM_PATH"] = "rocm"
	if _, err := flow.BuildForCargo(context.Background(), o); fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "ROCM_PATH") {
		t.Errorf("a relative ROCM_PATH: %v (exit %d), want exit 2 naming ROCM_PATH", err, fail.ExitCode(err))
	}
}
