package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// TestNewPinReconfigures checks the one case where a build's two decisions
// may not share what they read of the last build: a new pin purges the
// build directory (and its configure record) between them, so the second
// must configure from scratch; the next build is a no-op again.
func TestNewPinReconfigures(t *testing.T) {
	pin := func(p string) string { return "  pin: " + p + "\n" }
	app := newCPUApp(t, pin(strings.Repeat("a", 40)))
	ctx := context.Background()
	o := flow.Options{Dir: app, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	build := func() *flow.Summary {
		t.Helper()
		sum, err := flow.Build(ctx, o, "cpu")
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	build()
	if sum := build(); !sumIsNoop(sum) {
		t.Fatalf("second build is not a no-op: %+v", sum)
	}
	writeCPUProject(t, app, pin(strings.Repeat("b", 40)))
	sum := build()
	if !sum.Reconfigured || sum.Steps == 0 || len(sum.Why) == 0 || !strings.Contains(strings.Join(sum.Why, "; "), "pin") {
		t.Fatalf("a new pin: want a purge, a configure and a rebuild, got %+v", sum)
	}
	if _, err := os.Stat(filepath.Join(app, "..", "cache", "cpu", "build", "libmlx.a")); err != nil {
		t.Fatal(err)
	}
	if sum := build(); !sumIsNoop(sum) {
		t.Fatalf("the build after the new pin's is not a no-op: %+v", sum)
	}
}
