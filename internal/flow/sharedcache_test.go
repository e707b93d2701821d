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

// TestTwoProjectsSharingACache: a second project with the same
// MLXBUILD_CACHE must not build into (and later link) the first one's
// tree: overlay:apply refuses with exit 2 naming the owner, and the first
// project's tree is left as it was.
func TestTwoProjectsSharingACache(t *testing.T) {
	first := newProject(t, "")
	second := newProject(t, "")
	t.Setenv("MLXBUILD_CACHE", first.Cache)
	testutil.WriteFile(t, filepath.Join(second.Rocm, "mlx", "backend", "rocm", "device.hip"), "// the second project's kernel\n")
	var out, errs bytes.Buffer
	if _, err := flow.Apply(context.Background(), flow.Options{Dir: first.Dir, Stdout: &out, Stderr: &errs}, "rocm"); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(first.Cache, "rocm", "tree")
	before := testutil.Snapshot(t, tree)
	_, err := flow.Apply(context.Background(), flow.Options{Dir: second.Dir, Stdout: &out, Stderr: &errs}, "rocm")
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), first.Dir) || !strings.Contains(err.Error(), "MLXBUILD_CACHE") {
		t.Errorf("the second project: %v; want exit 2 naming %s and MLXBUILD_CACHE", err, first.Dir)
	}
	if diff := testutil.SnapshotDiff(before, testutil.Snapshot(t, tree)); diff != "" {
		t.Errorf("the second project changed the first one's tree:\n%s", diff)
	}
	// The first project keeps working.
	if _, err := flow.Apply(context.Background(), flow.Options{Dir: first.Dir, Stdout: &out, Stderr: &errs}, "rocm"); err != nil {
		t.Errorf("the owner again: %v", err)
	}
	// What the error suggests for a project that moved: clean the
	// backend, then the next run claims it.
	if err := flow.Clean(flow.Options{Dir: second.Dir, Stdout: &out, Stderr: &errs}, "rocm", false); err != nil {
		t.Fatal(err)
	}
	if _, err := flow.Apply(context.Background(), flow.Options{Dir: second.Dir, Stdout: &out, Stderr: &errs}, "rocm"); err != nil {
		t.Errorf("after cache:clean -backend=rocm: %v", err)
	}
}

// TestStaleTempsRemovedAtStart: temporary files a killed run left (the
// stamp's, the manifest's, a plain out/'s) are removed by the next run;
// nothing else is.
func TestStaleTempsRemovedAtStart(t *testing.T) {
	p := newProject(t, "")
	var out, errs bytes.Buffer
	o := flow.Options{Dir: p.Dir, Stdout: &out, Stderr: &errs}
	if _, err := flow.Apply(context.Background(), o, "rocm"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(p.Cache, "rocm")
	stale := []string{
		filepath.Join(dir, ".tmp-stamp.json-4001"),
		filepath.Join(dir, ".mlxbuild-tmp-manifest-4002"),
		filepath.Join(dir, "out", ".cargo.txt.tmp4003"),
	}
	kept := []string{filepath.Join(dir, "out", "cargo.txt"), filepath.Join(dir, "my.tmp"), filepath.Join(p.Dir, ".tmp-stamp.json-1")}
	for _, f := range append(append([]string{}, stale...), kept...) {
		testutil.WriteFile(t, f, "left by a kill\n")
	}
	if _, err := flow.Apply(context.Background(), o, "rocm"); err != nil {
		t.Fatal(err)
	}
	for _, f := range stale {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s survived the next run (%v)", f, err)
		}
	}
	for _, f := range kept {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", f, err)
		}
	}
}
