package flow_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"
)

// TestAPIDriftBaselineBeforeRetarget: the documented order, retarget then
// apiDrift. The candidate changes a core header the overlay carries
// (ops.h: is_available returns int); the retarget merges that into the
// overlay's ops.h, and the overlay's available.cpp, which upstream did not
// change, no longer compiles against it: at the candidate, and at the pin
// too when the pin is built with the retargeted ops.h. The baseline builds
// the overlay as it was before the retarget (its pre-images), so the break
// is listed. Without the pre-images it is not, and a note says why and how
// to get them.
func TestAPIDriftBaselineBeforeRetarget(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "nm", "c++", "git")
	h := testutil.NewExampleHistory(t, examplesDir)
	read := func(path string) string { return testutil.Git(t, h.MLX, "show", h.Pin+":"+path) + "\n" }
	ops := read("mlx/ops.h")
	if !strings.Contains(ops, "bool is_available();") {
		t.Fatal("the example changed: ops.h no longer declares bool is_available()")
	}
	// The overlay's own ops.h: upstream's with a local line far from the
	// one upstream changes, so the retarget merges it cleanly.
	testutil.WriteFile(t, filepath.Join(h.Overlay, "mlx/ops.h"), strings.Replace(ops, "#pragma once\n", "#pragma once\n// overlay: a local fix\n", 1))
	candidate := h.Commit(t, "is_available returns the number of devices", map[string]string{
		"mlx/ops.h":                     strings.Replace(ops, "bool is_available();", "int is_available();", 1),
		"mlx/c_api.cpp":                 read("mlx/c_api.cpp"),
		"mlx/backend/gpu/available.cpp": read("mlx/backend/gpu/available.cpp"),
		"mlx/version.cpp":               read("mlx/version.cpp"),
	})
	dir := filepath.Dir(h.Project)
	cfg, err := configs.LoadConfig(dir, h.Env)
	if err != nil {
		t.Fatal(err)
	}
	_, ro, err := forksync.RetargetOptionsFor(cfg, "cpu", candidate)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forksync.Retarget(context.Background(), ro); err != nil {
		t.Fatalf("retarget: %v", err)
	}
	if got := mustRead(t, filepath.Join(h.Overlay, "mlx/ops.h")); !strings.Contains(got, "int is_available();") || !strings.Contains(got, "a local fix") {
		t.Fatalf("the retarget did not merge ops.h:\n%s", got)
	}
	opts := flow.APIDriftOptions{Job: flow.Options{Dir: dir, Env: h.Env}, Backend: "cpu", Candidate: candidate}
	listed := func(rep *flow.APIDriftReport) bool {
		for _, f := range rep.CompileErrors {
			if f.File == "mlx/backend/gpu/available.cpp" && f.InOverlay && len(f.Errors) > 0 {
				return true
			}
		}
		return false
	}
	rep, report := runDrift(t, opts)
	if !listed(rep) || !strings.Contains(report, "builds the overlay as it was before overlay:retarget") {
		t.Errorf("with the pre-images, the break in available.cpp is not listed, or the baseline not named:\n%s", report)
	}
	if strings.Contains(report, "overlay:retarget "+candidate+" first") {
		t.Errorf("after the retarget, the report still says to retarget first:\n%s", report)
	}

	// Again: the view of the overlay before the retarget keeps the files'
	// mtimes, so the kept baseline build has nothing to redo.
	runDrift(t, opts)
	baseLog := filepath.Join(cfg.CacheRoot.Value, "apidrift", "cpu", h.Pin[:12], "build.log")
	if log := mustRead(t, baseLog); !strings.Contains(log, "no work to do") {
		t.Errorf("the second run rebuilt the baseline:\n%s", log)
	}

	// Without the pre-images: today's baseline, and the note.
	if err := os.RemoveAll(forksync.PreimagesDir(cfg.CacheRoot.Value, "cpu", h.Pin, candidate)); err != nil {
		t.Fatal(err)
	}
	rep, report = runDrift(t, opts)
	if listed(rep) {
		t.Errorf("with the retargeted ops.h at the pin too, the break was expected at both pins:\n%s", report)
	}
	if !strings.Contains(report, "kept no copy of the overlay as it was before") || !strings.Contains(report, "run overlay:retarget "+candidate+" again") {
		t.Errorf("the report does not say the baseline used the retargeted core files:\n%s", report)
	}
	// The unit that fails fails at the pin too: said, and not taken for a
	// build with nothing readable.
	if !strings.Contains(report, "(1 also at the pin: mlx/backend/gpu/available.cpp)") || !strings.Contains(report, "no break of the bump: the build fails only as it does at source.pin too") {
		t.Errorf("the failure at both pins is not named:\n%s", report)
	}
	if err := rep.Err(); err == nil || strings.Contains(err.Error(), "no error could be read") {
		t.Errorf("verdict %v, want a failure that is not the bump's", err)
	}
}
