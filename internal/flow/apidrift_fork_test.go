package flow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// forkStandIn is the stand-in fork of TestAPIDriftForkShapedBuild: the
// history, its candidate (dtype_ctype renamed, is_available returns int),
// and apiDrift's options for it, without a baseline.
func forkStandIn(t *testing.T) (h *testutil.ExampleHistory, candidate string, opts flow.APIDriftOptions) {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "clang++-15", "git", "nm", "c++")
	h = testutil.NewExampleHistory(t, examplesDir)
	kernels := strings.Replace(forkStyleKernels, "-std=c++17", "-std=c++17 -parallel-jobs=2", 1)
	if kernels == forkStyleKernels {
		t.Fatal("forkStyleKernels changed: it no longer passes -std=c++17")
	}
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "patches-rocm"), h.Overlay)
	testutil.WriteFile(t, filepath.Join(h.Overlay, "mlx/backend/rocm/CMakeLists.txt"), kernels)
	spec, err := filepath.Abs(filepath.Join(examplesDir, "minimlx", "rocm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mirror, _ := filepath.Abs(filepath.Join(examplesDir, "minimlx", "deps"))
	testutil.WriteFile(t, h.Project, "source:\n  git: ../mlx\n  pin: "+h.Pin+"\ncache: ../cache\ndeps_mirror: "+mirror+
		"\nbackends:\n  rocm:\n    overlay: patches\n    spec: "+spec+"\n    merge: extend\n")

	read := func(rev, path string) string { return testutil.Git(t, h.MLX, "show", rev+":"+path) + "\n" }
	edit := func(s, old, new string) string { return editText(t, s, old, new) }
	candidate = h.Commit(t, "dtype_ctype is dtype_to_cstr; is_available returns the number of devices", map[string]string{
		"mlx/dtype.h":   edit(read(h.Pin, "mlx/dtype.h"), "dtype_ctype", "dtype_to_cstr"),
		"mlx/ops.h":     edit(read(h.Pin, "mlx/ops.h"), "bool is_available();", "int is_available();"),
		"mlx/c_api.cpp": read(h.Pin, "mlx/c_api.cpp"),
		"mlx/backend/gpu/available.cpp": edit(read(h.Pin, "mlx/backend/gpu/available.cpp"),
			"bool is_available() {\n  return false;", "int is_available() {\n  return 0;"),
	})
	env := map[string]string{"MLX_ROCM_ARCHITECTURES": "gfx1030", "PATH": os.Getenv("PATH")}
	opts = flow.APIDriftOptions{
		Job: flow.Options{Dir: filepath.Dir(h.Project), Env: func(k string) string { return env[k] }}, Backend: "rocm", Candidate: candidate, NoBaseline: true}
	return h, candidate, opts
}

// TestAPIDriftForkShapedBuild runs apiDrift on a stand-in shaped like the
// real ROCm fork, with Debian's real ROCm toolchain: HIP sources compiled by
// add_custom_command (no CMake HIP language) through the versioned
// clang++-15 with the fork's -parallel-jobs (which that clang rejects: only
// mlxbuild's launcher of custom commands makes them compile), `mlx` waiting
// for the kernel library (add_dependencies), and a dependency fetched with
// FetchContent from a URL that does not resolve (only the dependency
// provider makes it configure). The candidate breaks one kernel API
// (dtype_ctype renamed) and one C++ API (is_available returns int): both are
// reported in one run, by overlay file, and the C++ units that wait for the
// failed kernels were compiled all the same.
func TestAPIDriftForkShapedBuild(t *testing.T) {
	h, _, opts := forkStandIn(t)
	rep, report := runDrift(t, opts)
	if rep.ConfigureError != "" {
		t.Fatalf("the candidate did not configure offline: %s", rep.ConfigureError)
	}
	log, err := os.ReadFile(rep.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "-parallel-jobs") && strings.Contains(string(log), "unknown argument") {
		t.Errorf("a HIP compile ran without the launcher:\n%s", log)
	}
	errorsIn := map[string]string{}
	for _, f := range rep.CompileErrors {
		if !f.InOverlay {
			t.Errorf("%s is not named as an overlay file: %+v", f.File, f)
		}
		for _, d := range f.Errors {
			errorsIn[f.File] += d.Message + "\n"
		}
	}
	if !strings.Contains(errorsIn["mlx/backend/rocm/kernel_port.h"], "dtype_ctype") {
		t.Errorf("the kernel break (dtype_ctype in kernel_port.h) is not reported: %v", errorsIn)
	}
	if !strings.Contains(errorsIn["mlx/backend/gpu/available.cpp"], "is_available") {
		t.Errorf("the C++ API break (is_available in available.cpp) is not reported: %v", errorsIn)
	}
	// Three HIP units (each includes kernel_port.h or uses dtype_ctype)
	// and available.cpp fail; every other unit compiled.
	if rep.FailedUnits != 4 || rep.Units < 8 {
		t.Errorf("%d of %d units failed, want 4 of at least 8", rep.FailedUnits, rep.Units)
	}
	if !strings.Contains(report, fmt.Sprintf("%d of %d units compiled; 4 failed\n", rep.Units-4, rep.Units)) {
		t.Errorf("the report does not say how much compiled:\n%s", report)
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "break") {
		t.Errorf("verdict: %v", err)
	}

	// The scratch build is kept: after the kernels are fixed in the
	// overlay, a header edit must recompile the HIP units that include it,
	// though their custom commands have no depfile.
	for _, f := range []string{"mlx/backend/rocm/kernel_port.h", "mlx/backend/rocm/device.hip"} {
		path := filepath.Join(h.Overlay, f)
		testutil.WriteFile(t, path, editText(t, mustRead(t, path), "dtype_ctype", "dtype_to_cstr"))
	}
	again := func() *flow.APIDriftReport {
		t.Helper()
		rep, _ := runDrift(t, opts)
		return rep
	}
	if rep = again(); rep.FailedUnits != 1 || len(rep.CompileErrors) != 1 {
		t.Fatalf("after fixing the kernels: %d units failed, errors %+v", rep.FailedUnits, rep.CompileErrors)
	}
	hk := filepath.Join(h.Overlay, "mlx/backend/rocm/hip_kernel.h")
	testutil.WriteFile(t, hk, mustRead(t, hk)+"\nint mlxbuild_planted = ;\n")
	rep = again()
	planted := 0
	for _, f := range rep.CompileErrors {
		if f.File == "mlx/backend/rocm/hip_kernel.h" {
			planted = len(f.Errors)
		}
	}
	// device.hip and reduce.hip include hip_kernel.h; binary.hip does not.
	if planted != 1 || rep.FailedUnits != 3 {
		t.Errorf("after a header edit: %d failed units, errors %+v; want device.hip and reduce.hip recompiled and failing on hip_kernel.h", rep.FailedUnits, rep.CompileErrors)
	}
}

// editText is s with every old replaced by new; old must be there.
func editText(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the example changed: %q is gone", old)
	}
	return strings.ReplaceAll(s, old, new)
}

// TestAPIDriftKeptBaselineCompilesNoKernelTwice: as on the real fork, an
// apiDrift run at source.pin itself (which builds the pin's scratch folder),
// then one at the candidate, whose baseline is that kept folder: the
// baseline's HIP kernels, compiled by the first run, are not compiled again,
// nor on a third run.
func TestAPIDriftKeptBaselineCompilesNoKernelTwice(t *testing.T) {
	h, candidate, opts := forkStandIn(t)
	opts.NoBaseline = false
	atPin := opts
	atPin.Candidate = h.Pin
	rep, _ := runDrift(t, atPin)
	baseLog := rep.LogPath
	if n := hipCompiles(t, baseLog); n == 0 {
		t.Fatalf("the run at the pin compiled no HIP kernel:\n%s", mustRead(t, baseLog))
	}
	for run := 2; run <= 3; run++ {
		rep, _ = runDrift(t, opts)
		if rep.Candidate != candidate || rep.Pin != h.Pin {
			t.Fatalf("run %d: built %s against %s", run, rep.Candidate, rep.Pin)
		}
		if n := hipCompiles(t, baseLog); n != 0 {
			t.Errorf("run %d compiled %d HIP kernels of the kept baseline again:\n%s", run, n, mustRead(t, baseLog))
		}
	}
}

// hipCompiles counts the HIP compiles a build log shows (the stand-in's
// custom commands say "Compiling HIP source").
func hipCompiles(t *testing.T, log string) int {
	t.Helper()
	return strings.Count(mustRead(t, log), "Compiling HIP source")
}
