package overlays

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// takeLock writes the lock file as cache.Lock does when it takes the lock
// (the holder's pid), which moves its ctime: the racy rule's clock.
func takeLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runHeld is f.run under a freshly taken lock.
func (f *fixture) runHeld(t *testing.T) Stats {
	t.Helper()
	lock := filepath.Join(filepath.Dir(f.manifest), "lock")
	takeLock(t, lock)
	st, m, err := MaterializeHeld(f.pristine, f.overlay, f.tree, f.manifest, testRecords, Held{LockFile: lock})
	f.check(t, m, err)
	return st
}

// settled makes the fixture's tree and runs until the manifest trusts every
// file: the cold run writes the tree, the next reads the files the cold
// run wrote (a clock tick before its lock) and keeps their ctimes. A third
// run reads no file and leaves the manifest as it was.
func settled(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	time.Sleep(20 * time.Millisecond) // the sources a clock tick older than the lock
	if st := f.runHeld(t); st.Written != len(f.want()) {
		t.Fatalf("cold run: %+v", st)
	}
	time.Sleep(20 * time.Millisecond)
	if st := f.runHeld(t); st.Written+st.Removed+st.Restored+st.Touched != 0 {
		t.Fatalf("second run: %+v, want a no-op", st)
	}
	before, _ := os.Stat(f.manifest)
	if st := f.runHeld(t); st.Unchanged != len(f.want()) {
		t.Fatalf("third run: %+v, want a no-op", st)
	}
	if after, _ := os.Stat(f.manifest); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("a no-op that trusted every file rewrote the manifest")
	}
	return f
}

// TestEveryChangeOfADirectoryIsSeen: a change of any side's directory right
// after a no-op (no sleep) is seen, and the tree is exact again.
func TestEveryChangeOfADirectoryIsSeen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, f *fixture)
	}{
		{"a file added to pristine", func(t *testing.T, f *fixture) {
			f.add(t, f.pristine, f.p, "mlx/backend/cpu/sub.cpp", "// cpu sub\n")
		}},
		{"a file removed from pristine", func(t *testing.T, f *fixture) {
			f.remove(t, f.pristine, f.p, "mlx/backend/common/copy.h")
		}},
		{"a pristine file renamed", func(t *testing.T, f *fixture) {
			if err := os.Rename(filepath.Join(f.pristine, "a.txt"), filepath.Join(f.pristine, "a2.txt")); err != nil {
				t.Fatal(err)
			}
			f.p["a2.txt"] = f.p["a.txt"]
			delete(f.p, "a.txt")
		}},
		{"a file added to the overlay", func(t *testing.T, f *fixture) {
			f.add(t, f.overlay, f.o, "mlx/backend/rocm/new.hip", "// new\n")
		}},
		{"an overlay file removed (pristine's back)", func(t *testing.T, f *fixture) {
			f.remove(t, f.overlay, f.o, "mlx/backend/common/util.h")
		}},
		{"a file made in the tree", func(t *testing.T, f *fixture) {
			if err := os.WriteFile(filepath.Join(f.tree, "mlx/backend/cpu/stray.o"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"a directory made in the tree", func(t *testing.T, f *fixture) {
			if err := os.Mkdir(filepath.Join(f.tree, "mlx/stray"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"a tree file removed", func(t *testing.T, f *fixture) {
			if err := os.Remove(filepath.Join(f.tree, "mlx/array.h")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a pristine directory replaced by a file", func(t *testing.T, f *fixture) {
			if err := os.RemoveAll(filepath.Join(f.pristine, "mlx/backend/metal")); err != nil {
				t.Fatal(err)
			}
			delete(f.p, "mlx/backend/metal/empty.h")
			f.add(t, f.pristine, f.p, "mlx/backend/metal", "// now a file\n")
		}},
		{"a pristine directory swapped for another", func(t *testing.T, f *fixture) {
			cpu := filepath.Join(f.pristine, "mlx/backend/cpu")
			writeFiles(t, cpu+".new", files{"mul.cpp": "// cpu mul\n"})
			if err := os.Rename(cpu, cpu+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(cpu+".new", cpu); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(cpu + ".old"); err != nil {
				t.Fatal(err)
			}
			delete(f.p, "mlx/backend/cpu/add.cpp")
			f.p["mlx/backend/cpu/mul.cpp"] = "// cpu mul\n"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := settled(t)
			tc.change(t, f)
			f.runHeld(t) // checks the tree is pristine + overlay exactly
		})
	}
}

// add writes a file on one side and into its expected files.
func (f *fixture) add(t *testing.T, root string, fs files, rel, content string) {
	t.Helper()
	writeFiles(t, root, files{rel: content})
	fs[rel] = content
}

// remove deletes a file on one side and from its expected files.
func (f *fixture) remove(t *testing.T, root string, fs files, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
	delete(fs, rel)
}
