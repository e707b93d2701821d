package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestUnsupportedArchIsRefused: a target Debian's ROCm 5.2 cannot compile
// (gfx1151, "invalid target ID" to clang 15) is bad configuration. plan:rocm
// says the build would be refused, and why, instead of "would redo:
// configure and build"; build:rocm refuses it with exit 2 before anything
// of the configure is said or run, in one line that names the toolchain's
// version, the nearest targets it does compile and the variable to change.
func TestUnsupportedArchIsRefused(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc")
	p := newProject(t, "link:\n  remove: [rocblas, hipblaslt, hipfft]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1151")
	ctx := context.Background()
	var stdout bytes.Buffer
	if err := flow.Plan(ctx, flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:rocm", "rocm"); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^toolchain: rocm (\S+) at (\S+) `).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("plan:rocm names no toolchain:\n%s", stdout.String())
	}
	if strings.HasPrefix(m[1], "6.") || strings.HasPrefix(m[1], "7.") {
		t.Skipf("ROCm %s may compile gfx1151; the refusal is Debian 12's ROCm 5.2's", m[1])
	}
	refusal := "gfx1151 is not supported by the ROCm " + m[1] + " toolchain at " + m[2] +
		" (clang++-15: invalid target ID 'gfx1151'); set MLX_ROCM_ARCHITECTURES to a target it supports (nearest: gfx1031, gfx1030), or ROCM_PATH to a ROCm that supports gfx1151"
	if want := "would refuse the build before configure (exit 2): " + refusal + "\n"; !strings.HasSuffix(stdout.String(), want) {
		t.Errorf("plan:rocm ends:\n%s\nwant its last line:\n%s", lastLines(stdout.String(), 2), want)
	}
	if strings.Contains(stdout.String(), "would redo:") {
		t.Errorf("plan:rocm says it would redo what a build refuses:\n%s", stdout.String())
	}

	var stderr bytes.Buffer
	_, err := flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "rocm")
	if err == nil || err.Error() != refusal || fail.KindOf(err) != fail.Config {
		t.Fatalf("build:rocm: %v (kind %v), want the refusal, exit 2:\n%s", err, fail.KindOf(err), refusal)
	}
	if strings.Contains(stderr.String(), "configure") {
		t.Errorf("build:rocm speaks of a configure it refused:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(p.Cache, "rocm", "build", "CMakeCache.txt")); !os.IsNotExist(err) {
		t.Errorf("CMake ran for an unsupported target: %v", err)
	}
}

// lastLines are the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
