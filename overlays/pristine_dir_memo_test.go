package overlays

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// countSourceWalks counts the walks of a source.dir check from now on, and
// moves the racy clock by shift (an hour on: every folder just made is
// old enough to keep).
func countSourceWalks(t *testing.T, shift time.Duration) *int {
	t.Helper()
	n := 0
	oldWalk, oldNow := walkSourceDir, sourceNow
	walkSourceDir = func(ctx context.Context, dir string) error { n++; return checkDirEntries(ctx, dir) }
	sourceNow = func() time.Time { return time.Now().Add(shift) }
	t.Cleanup(func() { walkSourceDir, sourceNow = oldWalk, oldNow })
	return &n
}

// sourceDirAndCache makes a plain source.dir (no git) with nested folders
// and a cache root mlxbuild made.
func sourceDirAndCache(t *testing.T) (src, root string) {
	t.Helper()
	src, root = t.TempDir(), filepath.Join(t.TempDir(), "cache")
	writeFiles(t, src, files{"CMakeLists.txt": "v1\n", "mlx/array.h": "// v1\n", "mlx/backend/cpu/a.cpp": "// a\n"})
	if err := cache.EnsureRoot(root); err != nil {
		t.Fatal(err)
	}
	return src, root
}

// pristineWalks runs the pristine step of src and checks how many walks
// the check has made by then.
func pristineWalks(t *testing.T, root, src string, walks *int, want int) error {
	t.Helper()
	_, err := Pristine(context.Background(), root, Source{Dir: src})
	if *walks != want {
		t.Errorf("%d walks of the source so far, want %d", *walks, want)
	}
	return err
}

// A passed check of a source.dir is kept while its folders are unchanged,
// and any entry added, even deep down, is checked again and refused.
func TestSourceDirCheckIsKeptWhileItsFoldersHold(t *testing.T) {
	src, root := sourceDirAndCache(t)
	walks := countSourceWalks(t, time.Hour)
	for i, want := range []int{1, 1, 1} {
		if err := pristineWalks(t, root, src, walks, want); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "discovery", sourceDirMemoFile)); err != nil {
		t.Errorf("no kept check: %v", err)
	}
	evil := filepath.Join(src, "mlx", "backend", "cpu", "evil")
	if err := os.Symlink("/etc/hostname", evil); err != nil {
		t.Fatal(err)
	}
	err := pristineWalks(t, root, src, walks, 2)
	if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "mlx/backend/cpu/evil") {
		t.Fatalf("a link out of the source after a kept check: exit %d, %v; want exit 2 naming it", fail.ExitCode(err), err)
	}
	// A refused source is never kept: refused again, by a walk.
	if err := pristineWalks(t, root, src, walks, 3); fail.ExitCode(err) != 2 {
		t.Fatalf("refused once, then: %v", err)
	}
	if err := os.Remove(evil); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{4, 4} {
		if err := pristineWalks(t, root, src, walks, want); err != nil {
			t.Fatalf("run %d after the fix: %v", i+1, err)
		}
	}
	// A folder replaced by another of the same name and content.
	cpu := filepath.Join(src, "mlx", "backend", "cpu")
	replaceWithClimbingLink(t, cpu)
	if err := pristineWalks(t, root, src, walks, 5); fail.ExitCode(err) != 2 {
		t.Fatalf("a replaced folder with a link that climbs out: %v; want exit 2", err)
	}
}

// Nothing is kept when a folder changed within the racy clock's slack,
// when the source has .gitmodules (its check asks git for the index), or
// when the cache root is not one mlxbuild made.
func TestSourceDirCheckIsNotKept(t *testing.T) {
	t.Run("folders changed just now", func(t *testing.T) {
		src, root := sourceDirAndCache(t)
		walks := countSourceWalks(t, 0)
		for i, want := range []int{1, 2} {
			if err := pristineWalks(t, root, src, walks, want); err != nil {
				t.Fatalf("run %d: %v", i+1, err)
			}
		}
	})
	t.Run("gitmodules", func(t *testing.T) {
		src, root := sourceDirAndCache(t)
		writeFiles(t, src, files{".gitmodules": ""})
		walks := countSourceWalks(t, time.Hour)
		for i, want := range []int{1, 2} {
			if err := pristineWalks(t, root, src, walks, want); err != nil {
				t.Fatalf("run %d: %v", i+1, err)
			}
		}
	})
	t.Run("cache root not made", func(t *testing.T) {
		src, _ := sourceDirAndCache(t)
		root := t.TempDir()
		walks := countSourceWalks(t, time.Hour)
		for i, want := range []int{1, 2} {
			if err := pristineWalks(t, root, src, walks, want); err != nil {
				t.Fatalf("run %d: %v", i+1, err)
			}
		}
		if _, err := os.Lstat(filepath.Join(root, "discovery")); !os.IsNotExist(err) {
			t.Errorf("a discovery folder in a cache root mlxbuild did not make (%v)", err)
		}
	})
}

// replaceWithClimbingLink replaces the folder cpu (holding a.cpp) by
// another of the same name and content, plus a link that climbs out of
// the source.
func replaceWithClimbingLink(t *testing.T, cpu string) {
	t.Helper()
	if err := os.Rename(cpu, cpu+".old"); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, cpu, files{"a.cpp": "// a\n"})
	if err := os.Symlink("../../../../x", filepath.Join(cpu, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(cpu + ".old"); err != nil {
		t.Fatal(err)
	}
}
