package cache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCheckFolderRefusesWhatMlxbuildDidNotMake: CheckFolder and
// Layout.CheckFolders accept the folders a build makes (out/ the link to
// its own generation included) and missing ones, and refuse, as a
// configuration error naming the path, a link to a user's folder at every
// depth, a file where a folder goes, a link where the lock or a log is
// written in place, another owner's folder (as root), and a root without
// mlxbuild's tag.
func TestCheckFolderRefusesWhatMlxbuildDidNotMake(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	l := For(root, "cpu")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{l.Tree, l.Build, filepath.Join(l.Dir, ".out-gen-123"), l.Discovery} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".out-gen-123", l.Out); err != nil {
		t.Fatal(err)
	}
	if err := l.CheckFolders(); err != nil {
		t.Fatalf("a cache as a build leaves it: %v", err)
	}
	if err := CheckFolder(root, filepath.Join(l.Tree, "not", "yet")); err != nil {
		t.Errorf("a folder not made yet: %v", err)
	}
	user := t.TempDir()
	userFile := filepath.Join(user, "notes.txt")
	testutil.WriteFile(t, userFile, "mine")

	refused := func(what, path string, err error, want string) {
		t.Helper()
		var fe *folderError
		if !errors.As(err, &fe) || fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), path+" "+want) {
			t.Errorf("%s: %v, want a configuration error saying %s %s", what, err, path, want)
		}
	}
	// swap puts something else at path for one check.
	swap := func(path string, plant func(string) error, check func()) {
		t.Helper()
		aside := path + ".aside"
		moved := os.Rename(path, aside) == nil
		if err := plant(path); err != nil {
			t.Fatal(err)
		}
		check()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if moved {
			if err := os.Rename(aside, path); err != nil {
				t.Fatal(err)
			}
		}
	}
	link := func(target string) func(string) error {
		return func(p string) error { return os.Symlink(target, p) }
	}
	for _, p := range []string{l.Dir, l.Tree, l.Build, l.Out, l.Discovery, l.HIPPrefix, filepath.Join(l.Dir, "ccache"), filepath.Join(l.Dir, "overlay")} {
		swap(p, link(user), func() { refused("a link at "+p, p, l.CheckFolders(), "is a symbolic link to "+user) })
	}
	for _, p := range []string{filepath.Join(root, "deps"), filepath.Join(root, "src"), l.Discovery} {
		swap(p, link(user), func() { refused("EnsureRoot with a link at "+p, p, EnsureRoot(root), "is a symbolic link to "+user) })
	}
	// Deeper than the layout's own folders: every component is checked.
	swap(filepath.Join(l.Tree, "mlx"), link(user), func() {
		refused("a link inside tree/", filepath.Join(l.Tree, "mlx"), CheckFolder(root, filepath.Join(l.Tree, "mlx", "backend")), "is a symbolic link")
	})
	// out/ may only name its own generation, a plain name beside it.
	swap(l.Out, link("../../elsewhere"), func() {
		refused("out/ to another place", l.Out, l.CheckFolders(), "is a symbolic link to ../../elsewhere")
	})
	swap(l.Build, func(p string) error { return os.WriteFile(p, []byte("x"), 0o644) }, func() { refused("a file at build/", l.Build, l.CheckFolders(), "is not a folder") })
	for _, f := range []string{l.Lock, l.Log, l.Relink} {
		swap(f, link(userFile), func() { refused("a link at "+f, f, l.CheckFolders(), "is a symbolic link to "+userFile) })
	}
	if os.Getuid() == 0 {
		if err := os.Chown(l.Build, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		refused("another owner's build/", l.Build, l.CheckFolders(), "is owned by uid 4242")
		if err := os.Chown(l.Build, 0, 0); err != nil {
			t.Fatal(err)
		}
		// A user's root where a run as root made the folders: theirs
		// for a run as root.
		if err := os.Chown(root, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if err := l.CheckFolders(); err != nil {
			t.Errorf("folders a run as root made in a user's cache, checked as root: %v", err)
		}
		if err := os.Chown(root, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	untagged := t.TempDir()
	var fr *ForeignRootError
	if err := CheckFolder(untagged, filepath.Join(untagged, "cpu")); !errors.As(err, &fr) {
		t.Errorf("a root without the tag: %v, want a ForeignRootError", err)
	}
	if b, err := os.ReadFile(userFile); err != nil || string(b) != "mine" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
}
