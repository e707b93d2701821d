package flow_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestNoGPUNoteWhereTheListDecides: with no GPU and no variable, the
// spec's default list is said where it decides what is compiled, a build
// that configures ("building for"), and as what a build would do by plan
// ("would build for"); a no-op build, which compiles nothing for it, says
// nothing of it.
func TestNoGPUNoteWhereTheListDecides(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc")
	p := newProject(t, "link:\n  remove: [rocblas, hipblaslt, hipfft]\n"+
		"architectures:\n  env: MLX_ROCM_ARCHITECTURES\n  probes: [kfd]\n  cmake: [CMAKE_HIP_ARCHITECTURES, MLX_ROCM_ARCHITECTURES]\n  default: [gfx1030]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "")
	t.Setenv("MLXBUILD_KFD_TOPOLOGY", t.TempDir())
	ctx := context.Background()
	const (
		building = "warning: no GPU found; building for the spec's default list gfx1030 (set MLX_ROCM_ARCHITECTURES to choose)"
		would    = "warning:   no GPU found; would build for the spec's default list gfx1030 (set MLX_ROCM_ARCHITECTURES to choose)"
	)
	run := func(t *testing.T, what func(o flow.Options) error) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := what(flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr}); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	build := func(o flow.Options) error { _, err := flow.Build(ctx, o, "rocm"); return err }
	plan := func(o flow.Options) error { return flow.Plan(ctx, o, "plan:rocm", "rocm") }

	out, _ := run(t, plan)
	if lines := noteLines(out); len(lines) != 1 || lines[0] != would {
		t.Errorf("plan:rocm before the first build says %q, want %q", lines, would)
	}
	_, log := run(t, build)
	if lines := noteLines(log); len(lines) != 1 || lines[0] != building {
		t.Errorf("the first build says %q, want %q\n%s", lines, building, log)
	}
	if c, n := strings.Index(log, building), strings.Index(log, "==> configure"); c < 0 || n < c {
		t.Errorf("the note is not said before the configure it decides:\n%s", log)
	}
	_, log = run(t, build)
	if lines := noteLines(log); len(lines) != 0 || !strings.Contains(log, "up to date") {
		t.Errorf("a no-op build says %q, want nothing of the list\n%s", lines, log)
	}
	out, _ = run(t, plan)
	if lines := noteLines(out); len(lines) != 1 || lines[0] != would {
		t.Errorf("plan:rocm after the build says %q, want %q", lines, would)
	}
}

// noteLines are the lines of out that speak of the no-GPU default list.
func noteLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "no GPU found") {
			lines = append(lines, l)
		}
	}
	return lines
}
