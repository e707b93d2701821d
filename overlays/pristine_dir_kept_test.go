package overlays

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// buildWalks runs a build's pristine step and materialize of src into
// tree (PristineKept, MaterializeHeld with its pending check), checks how
// many walks the source check has made by then, and returns the pending
// check (nil: none).
func buildWalks(t *testing.T, root, src, tree string, walks *int, want int) (*sourceCheck, error) {
	t.Helper()
	dir, check, err := PristineKept(context.Background(), root, Source{Dir: src})
	if err == nil {
		_, _, err = MaterializeHeld(dir, "", tree, tree+".manifest", nil, Held{Source: check})
	}
	if *walks != want {
		t.Errorf("%d walks of the source so far, want %d", *walks, want)
	}
	return check, err
}

// A build confirms a kept source.dir check with the walk of the pristine
// folders it makes anyway: a no-op runs no check of its own (no stat of
// each folder), and any entry added after the check, even deep down, is
// still refused, before anything of it reaches the tree.
func TestKeptSourceCheckIsConfirmedByTheWalk(t *testing.T) {
	src, root := sourceDirAndCache(t)
	tree := filepath.Join(t.TempDir(), "tree")
	walks := countSourceWalks(t, time.Hour)
	if _, err := buildWalks(t, root, src, tree, walks, 1); err != nil { // checked, kept
		t.Fatal(err)
	}
	if _, err := buildWalks(t, root, src, tree, walks, 1); err != nil { // the tree made
		t.Fatal(err)
	}
	check, err := buildWalks(t, root, src, tree, walks, 1) // a no-op
	if err != nil {
		t.Fatal(err)
	}
	if check == nil {
		t.Fatal("no kept check pending on a no-op")
	}
	ran := false
	check.once.Do(func() { ran = true })
	if !ran {
		t.Error("a no-op ran the kept check besides its walk")
	}

	evil := filepath.Join(src, "mlx", "backend", "cpu", "evil")
	if err := os.Symlink("/etc/hostname", evil); err != nil {
		t.Fatal(err)
	}
	_, err = buildWalks(t, root, src, tree, walks, 2)
	if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "mlx/backend/cpu/evil") {
		t.Fatalf("a link out of the source after a kept check: exit %d, %v; want exit 2 naming it", fail.ExitCode(err), err)
	}
	if _, err := os.Lstat(filepath.Join(tree, "mlx", "backend", "cpu", "evil")); !os.IsNotExist(err) {
		t.Errorf("the refused link reached the tree (%v)", err)
	}
	if _, err := buildWalks(t, root, src, tree, walks, 3); fail.ExitCode(err) != 2 {
		t.Fatalf("refused once, then: %v", err)
	}
	if err := os.Remove(evil); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{4, 4} {
		if _, err := buildWalks(t, root, src, tree, walks, want); err != nil {
			t.Fatalf("after the fix: %v", err)
		}
	}

	// A folder whose identity changed with nothing to write: checked at
	// the walk's end.
	cpu := filepath.Join(src, "mlx", "backend", "cpu")
	if err := os.Chmod(cpu, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := buildWalks(t, root, src, tree, walks, 5); err != nil {
		t.Fatal(err)
	}

	// What the walk would copy but only the check refuses (a submodule:
	// a folder with its own .git): refused before anything of it is
	// written.
	sub := filepath.Join(src, "mlx", "sub")
	writeFiles(t, sub, files{".git": "gitdir: elsewhere\n", "x.h": "// x\n"})
	if _, err := buildWalks(t, root, src, tree, walks, 6); fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "submodule mlx/sub") {
		t.Fatalf("a submodule after a kept check: %v; want exit 2 naming it", err)
	}
	if _, err := os.Lstat(filepath.Join(tree, "mlx", "sub")); !os.IsNotExist(err) {
		t.Errorf("the refused submodule reached the tree (%v)", err)
	}
	if err := os.RemoveAll(sub); err != nil {
		t.Fatal(err)
	}

	// A link each of whose entries passes alone, but that passes through
	// another link (only the check sees the whole listing).
	mlx := filepath.Join(src, "mlx")
	if err := os.Symlink("backend", filepath.Join(mlx, "l1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("l1/cpu/a.cpp", filepath.Join(mlx, "l2")); err != nil {
		t.Fatal(err)
	}
	if _, err := buildWalks(t, root, src, tree, walks, 7); fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "mlx/l2") {
		t.Fatalf("a link through another link after a kept check: %v; want exit 2 naming it", err)
	}
	for _, name := range []string{"l1", "l2"} {
		if _, err := os.Lstat(filepath.Join(tree, "mlx", name)); !os.IsNotExist(err) {
			t.Errorf("%s of a refused source reached the tree (%v)", name, err)
		}
		if err := os.Remove(filepath.Join(mlx, name)); err != nil {
			t.Fatal(err)
		}
	}

	// A folder replaced by another of the same name and content, and a
	// link in it that climbs out.
	replaceWithClimbingLink(t, cpu)
	if _, err := buildWalks(t, root, src, tree, walks, 8); fail.ExitCode(err) != 2 {
		t.Fatalf("a replaced folder with a link that climbs out: %v; want exit 2", err)
	}
	if _, err := os.Lstat(filepath.Join(tree, "mlx", "backend", "cpu", "up")); !os.IsNotExist(err) {
		t.Errorf("the refused link reached the tree (%v)", err)
	}
}

// A kept check's entry that does not parse, or names another source, is
// no pending check: the check runs as before.
func TestKeptSourceCheckNeedsItsOwnEntry(t *testing.T) {
	src, root := sourceDirAndCache(t)
	walks := countSourceWalks(t, time.Hour)
	if err := pristineWalks(t, root, src, walks, 1); err != nil {
		t.Fatal(err)
	}
	if c := keptSourceCheck(context.Background(), root, src); c == nil || len(c.kept) != 4 {
		t.Fatalf("kept check of %s: %+v; want its 4 folders", src, c)
	}
	if c := keptSourceCheck(context.Background(), root, t.TempDir()); c != nil {
		t.Error("a kept check pending for another source")
	}
	if _, _, ok := keptFolder("/src", `"/src/a" 16877 4096 1 2 3`); ok {
		t.Error("a key with a field missing parsed")
	}
	if _, _, ok := keptFolder("/src", `"/other/a" 16877 4096 1 2 3 4`); ok {
		t.Error("a key outside the source parsed")
	}
	if rel, id, ok := keptFolder("/src", `"/src/a/b" 16877 4096 1 2 3 4`); !ok || rel != "a/b" || id != (dirID{dev: 4, ino: 3, mtime: 1, ctime: 2}) {
		t.Errorf("keptFolder = %q, %+v, %v", rel, id, ok)
	}
}
