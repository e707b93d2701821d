package flow_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestAPIDriftListsEachBreak builds the example's overlay on three upstream
// commits past its pin (a rename, a changed signature, a new primitive) and
// expects each break by name, and none at the pin itself.
func TestAPIDriftListsEachBreak(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "nm", "c++", "git")
	h := testutil.NewExampleHistory(t, examplesDir)
	rep, report := runDrift(t, flow.APIDriftOptions{
		Job: flow.Options{Dir: filepath.Dir(h.Project), Env: h.Env}, Backend: "cpu", Candidate: "main"})
	// The overlay's core files follow the pin: retarget first, it says.
	if !strings.Contains(report, "the overlay's core files follow MLX "+h.Pin[:12]+", not the candidate: run overlay:retarget "+h.Head+" first") {
		t.Errorf("the report does not say to retarget first:\n%s", report)
	}
	if rep.Candidate != h.Head || rep.Pin != h.Pin {
		t.Errorf("built %s against %s, want %s against %s", rep.Candidate, rep.Pin, h.Head, h.Pin)
	}
	// The changed signature: the overlay's is_available no longer matches.
	if len(rep.CompileErrors) != 1 || rep.CompileErrors[0].File != "mlx/backend/gpu/available.cpp" || !rep.CompileErrors[0].InOverlay ||
		!strings.Contains(rep.CompileErrors[0].Errors[0].Message, "is_available") {
		t.Errorf("compile errors: %+v\n%s", rep.CompileErrors, report)
	}
	want := map[string]string{ // symbol -> the source that calls it
		"mlx::core::gpu::num_devices()":                                               "mlx/c_api.cpp",
		"mlx::core::gpu::add(float const*, float const*, float*, unsigned long, int)": "mlx/c_api.cpp",
		"mlx::core::gpu::multiply(float const*, float const*, float*, unsigned long)": "mlx/c_api.cpp",
	}
	got := map[string]flow.Symbol{}
	for _, s := range rep.Undefined {
		got[s.Name] = s
	}
	for name, from := range want {
		s, ok := got[name]
		if !ok {
			t.Errorf("undefined symbol %s is not reported:\n%s", name, report)
			continue
		}
		if len(s.From) != 1 || !strings.HasSuffix(s.From[0], from) {
			t.Errorf("%s is referenced from %v, want %s", name, s.From, from)
		}
		if !strings.Contains(report, name) {
			t.Errorf("the rendered report lacks %s", name)
		}
	}
	if len(rep.Undefined) != len(want) {
		t.Errorf("undefined symbols: %+v, want exactly %d (libstdc++'s and the pin's own are not breaks)", rep.Undefined, len(want))
	}
	// At the pin itself nothing breaks: the CPU build of the ROCm overlay
	// leaves the rocm:: kernels unresolved, but they were already.
	rep, report = runDrift(t, flow.APIDriftOptions{
		Job: flow.Options{Dir: filepath.Dir(h.Project), Env: h.Env}, Backend: "cpu", Candidate: h.Pin})
	if strings.Contains(report, "overlay:retarget") {
		t.Errorf("at the pin the overlay follows, the report still says to retarget:\n%s", report)
	}
	if rep.Breaks() != 0 || len(rep.Unresolved) == 0 || !strings.Contains(rep.Unresolved[0].Name, "rocm::") {
		t.Errorf("at the pin: breaks %d, unresolved %+v", rep.Breaks(), rep.Unresolved)
	}
}

// TestAPIDriftVerdicts: a candidate whose build fails with nothing a
// compiler said (a custom command that exits 1 silently) is never "no API
// drift", and a candidate that does not configure (a FetchContent download
// no provider declares, offline) is its own verdict, not a break to fix in
// the overlay; neither claims the trial link lacked a compiler.
func TestAPIDriftVerdicts(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "nm", "c++", "git")
	h := testutil.NewExampleHistory(t, examplesDir)
	atPin := map[string]string{}
	for _, f := range []string{"mlx/ops.h", "mlx/c_api.cpp", "mlx/backend/gpu/available.cpp"} {
		atPin[f] = testutil.Git(t, h.MLX, "show", h.Pin+":"+f) + "\n"
	}
	cml := testutil.Git(t, h.MLX, "show", h.Pin+":mlx/CMakeLists.txt") + "\n"
	atPin["mlx/CMakeLists.txt"] = cml + "add_custom_target(mlx_silent_failure ALL COMMAND false)\n"
	silent := h.Commit(t, "a build step that fails without a word", atPin)
	drift := func(candidate string) (*flow.APIDriftReport, string) {
		t.Helper()
		return runDrift(t, flow.APIDriftOptions{Job: flow.Options{Dir: filepath.Dir(h.Project), Env: h.Env}, Backend: "cpu", Candidate: candidate})
	}

	rep, report := drift(silent)
	if !rep.BuildFailed || rep.Breaks() != 0 || rep.FailedUnits != 0 {
		t.Errorf("silent failure: build failed %v, %d breaks, %d failed units", rep.BuildFailed, rep.Breaks(), rep.FailedUnits)
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "no error could be read") || !strings.Contains(err.Error(), rep.LogPath) {
		t.Errorf("silent failure: verdict %v", err)
	}
	if strings.Contains(report, "no API drift") || !strings.Contains(report, fmt.Sprintf("%d of %d units compiled\n", rep.Units, rep.Units)) {
		t.Errorf("silent failure: the report claims success or lacks the units line:\n%s", report)
	}

	top := testutil.Git(t, h.MLX, "show", h.Pin+":CMakeLists.txt") + "\n"
	unconfigurable := h.Commit(t, "a dependency CMake would download", map[string]string{
		"CMakeLists.txt": strings.Replace(top, "add_subdirectory(mlx)", "include(FetchContent)\nFetchContent_Declare(mystery URL https://example.invalid/mystery.tar.xz)\nFetchContent_MakeAvailable(mystery)\nadd_subdirectory(mlx)", 1),
	})
	rep, report = drift(unconfigurable)
	if rep.ConfigureError == "" || rep.Breaks() != 0 {
		t.Errorf("configure failure: %q, %d breaks", rep.ConfigureError, rep.Breaks())
	}
	if err := rep.Err(); err == nil || !strings.Contains(err.Error(), "could not configure the candidate") || strings.Contains(err.Error(), "fix them in the overlay") {
		t.Errorf("configure failure: verdict %v", err)
	}
	if !strings.Contains(report, "could not configure the candidate: ") || strings.Contains(report, "no C++ compiler") || strings.Contains(report, "no API drift") {
		t.Errorf("configure failure report:\n%s", report)
	}
}

// runDrift runs apiDrift and returns its report, rendered and logged.
func runDrift(t *testing.T, o flow.APIDriftOptions) (*flow.APIDriftReport, string) {
	t.Helper()
	rep, err := flow.APIDrift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Render(&out)
	t.Log(out.String())
	return rep, out.String()
}

// TestAPIDriftRender: the report's exact text; a failed unit that failed at
// the pin too is named in the units line, so the count of failures matches
// the files listed.
func TestAPIDriftRender(t *testing.T) {
	rep := &flow.APIDriftReport{
		Backend: "rocm", Pin: strings.Repeat("a", 40), Candidate: strings.Repeat("b", 40),
		Dir: "/c/apidrift/rocm/bbbbbbbbbbbb", LogPath: "/c/apidrift/rocm/bbbbbbbbbbbb/build.log",
		BuildFailed: true, Units: 143, FailedUnits: 4,
		FailedAtPin: []string{"mlx/backend/rocm/gemms/hipblaslt_gemm.cpp"},
		CompileErrors: []flow.FileErrors{{File: "mlx/backend/rocm/compiled.cpp", InOverlay: true,
			Errors: []cmake.Diagnostic{{Line: 913, Message: "only 3 names provided for structured binding"}}},
			{File: "/usr/include/hipblaslt/hipblaslt.h", Errors: []cmake.Diagnostic{{Line: 49, Message: "hipblas-common/hipblas-common.h: No such file or directory"}}}},
		Undefined: []flow.Symbol{{Name: "mlx::core::Event::error() const", From: []string{"mlx/backend/rocm/event.cpp"}}},
		Notes:     []string{"a note"},
	}
	var out strings.Builder
	rep.Render(&out)
	want := `rocm overlay on MLX bbbbbbbbbbbb (baseline: source.pin aaaaaaaaaaaa)
scratch build: /c/apidrift/rocm/bbbbbbbbbbbb
note: a note
139 of 143 units compiled; 4 failed (1 also at the pin: mlx/backend/rocm/gemms/hipblaslt_gemm.cpp)
compile errors in mlx/backend/rocm/compiled.cpp (overlay):
  mlx/backend/rocm/compiled.cpp:913: only 3 names provided for structured binding
compile errors in /usr/include/hipblaslt/hipblaslt.h (outside the tree: the system's):
  /usr/include/hipblaslt/hipblaslt.h:49: hipblas-common/hipblas-common.h: No such file or directory
undefined symbols (1):
  mlx::core::Event::error() const
    used by mlx/backend/rocm/event.cpp
3 breaks; build log: /c/apidrift/rocm/bbbbbbbbbbbb/build.log
`
	if out.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", out.String(), want)
	}
}
