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
)

// TestCacheCleanKeepsTheDependencyCache: after deps:fetch seeded the cache
// and the mirror is gone (an offline machine), cache:clean keeps the
// verified dependencies and says so in its one line, so the next build
// still works; -deps=true removes them too, and the build after that stops
// naming what is missing. -deps=true with -backend is a usage error.
func TestCacheCleanKeepsTheDependencyCache(t *testing.T) {
	p := newDepsProject(t)
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr}
	p.seed(t, o, flow.DepsFetch(ctx, o, "cpu", p.Mirror))
	if err := os.RemoveAll(p.Mirror); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(p.Cache, "deps")

	stdout.Reset()
	if err := flow.Clean(o, "", false); err != nil {
		t.Fatal(err)
	}
	if want := "cleaned every backend under " + p.Cache + " (kept the verified dependencies in " + store + "; -deps=true removes them)\n"; stdout.String() != want {
		t.Errorf("cache:clean printed %q, want %q", stdout.String(), want)
	}
	if _, err := os.Stat(filepath.Join(p.Cache, "src")); !os.IsNotExist(err) {
		t.Errorf("cache:clean left the shared sources: %v", err)
	}
	sum, err := flow.Build(ctx, o, "cpu")
	if err != nil || sum.Steps == 0 {
		t.Fatalf("the build after cache:clean, offline: %+v, %v\n%s", sum, err, stderr.String())
	}

	if err := flow.Clean(o, "cpu", true); fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "-backend=cpu") {
		t.Errorf("cache:clean -backend=cpu -deps=true: %v, want a usage error naming -backend", err)
	}
	if _, err := os.Stat(store); err != nil {
		t.Errorf("the refused clean touched the store: %v", err)
	}

	stdout.Reset()
	if err := flow.Clean(o, "", true); err != nil {
		t.Fatal(err)
	}
	if want := "cleaned every backend under " + p.Cache + "\n"; stdout.String() != want {
		t.Errorf("cache:clean -deps=true printed %q, want %q", stdout.String(), want)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("cache:clean -deps=true left %s: %v", store, err)
	}
	if _, err := flow.Build(ctx, o, "cpu"); err == nil || !strings.Contains(err.Error(), "2 dependencies that no provider has") {
		t.Errorf("a build with the store removed: %v, want the missing dependencies named", err)
	}
}
