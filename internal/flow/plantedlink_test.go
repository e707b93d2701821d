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

// TestLinkPlantedInTheCacheIsRefused replaces one folder of a built cpu
// cache at a time (tree, build, out, the backend's directory, the shared
// dependency store) by a symbolic link to a user's folder holding files.
// After an edit of the source, build:cpu and cache:clean (every backend,
// and -backend=cpu) must each exit 2 naming the link, and the user's folder
// must be byte for byte as it was, nothing created in it. Before, the
// build deleted the user's files in tree/ and build/ and wrote its own
// there, and clean emptied a linked backend directory and made its lock
// there.
func TestLinkPlantedInTheCacheIsRefused(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr}
	if _, err := flow.Build(ctx, o, "cpu"); err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	backend := filepath.Join(p.Cache, "cpu")
	for _, planted := range []string{
		filepath.Join(backend, "tree"),
		filepath.Join(backend, "build"),
		filepath.Join(backend, "out"),
		backend,
		filepath.Join(p.Cache, "deps"),
	} {
		name, _ := filepath.Rel(p.Cache, planted)
		t.Run(name, func(t *testing.T) {
			user := t.TempDir()
			testutil.WriteFile(t, filepath.Join(user, "notes.txt"), "the user's notes\n")
			testutil.WriteFile(t, filepath.Join(user, "src", "keep.cpp"), "int keep() { return 1; }\n")
			before := testutil.Snapshot(t, user)
			restore := plantLink(t, planted, user)
			defer restore()
			// An edit, so the build has work to do.
			testutil.WriteFile(t, filepath.Join(p.Mlx, "mlx", "edited.h"), "// "+name+"\n")
			_, err := flow.Build(ctx, o, "cpu")
			wantRefusal(t, "build:cpu", err, planted, user)
			wantRefusal(t, "cache:clean", flow.Clean(o, "", false), planted, user)
			wantRefusal(t, "cache:clean -backend=cpu", flow.Clean(o, "cpu", false), planted, user)
			if d := testutil.SnapshotDiff(before, testutil.Snapshot(t, user)); d != "" {
				t.Errorf("the user's folder behind %s changed:\n%s", planted, d)
			}
		})
	}
	// With every link gone, the cache builds again.
	if _, err := flow.Build(ctx, o, "cpu"); err != nil {
		t.Fatalf("build:cpu after the links were removed: %v\n%s", err, stderr.String())
	}
}

// plantLink moves the folder at path out of the cache (when there is one)
// and puts a link to user in its place; restore undoes both.
func plantLink(t *testing.T, path, user string) (restore func()) {
	t.Helper()
	aside := filepath.Join(t.TempDir(), "aside")
	moved := os.Rename(path, aside) == nil
	if err := os.Symlink(user, path); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if moved {
			if err := os.Rename(aside, path); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// wantRefusal holds err to a configuration error (exit 2) that names the
// planted link and where it points.
func wantRefusal(t *testing.T, what string, err error, planted, user string) {
	t.Helper()
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), planted+" is a symbolic link to "+user) {
		t.Errorf("%s with %s a link to a user's folder: %v, want exit 2 naming the link", what, planted, err)
	}
}
