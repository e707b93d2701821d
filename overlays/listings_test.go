package overlays

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// takeLock writes the lock file as cache.Lock does when it takes the lock
// (the holder's pid), which moves its ctime: the kept listings' clock.
func takeLock(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runHeld is f.run under a freshly taken lock: listings are kept.
func (f *fixture) runHeld(t *testing.T) Stats {
	t.Helper()
	lock := filepath.Join(filepath.Dir(f.manifest), "lock")
	takeLock(t, lock)
	st, m, err := MaterializeHeld(f.pristine, f.overlay, f.tree, f.manifest, testRecords, Held{LockFile: lock})
	f.check(t, m, err)
	return st
}

// treeDirs are the directories the fixture's tree holds ("" the root).
func (f *fixture) treeDirs(t *testing.T) []string {
	dirs := []string{""}
	err := filepath.WalkDir(f.tree, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != f.tree {
			rel, _ := filepath.Rel(f.tree, p)
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// keptListings makes the fixture's tree and runs until every directory's
// listings are kept: the cold run keeps pristine's and the overlay's (made
// a clock tick before its lock), the next keeps the tree's (which the cold
// run wrote). A third run reads no directory and leaves the manifest as it
// was.
func keptListings(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	time.Sleep(20 * time.Millisecond) // the sources a clock tick older than the lock
	if st := f.runHeld(t); st.Written != len(f.want()) {
		t.Fatalf("cold run: %+v", st)
	}
	time.Sleep(20 * time.Millisecond)
	if st := f.runHeld(t); st.Written+st.Removed+st.Restored+st.Touched != 0 || st.listed == 0 {
		t.Fatalf("second run: %+v, want a no-op that lists the tree's directories", st)
	}
	m := readManifest(f.manifest)
	for _, rel := range f.treeDirs(t) {
		if r := m.dirRecord(rel); r == nil || !r.has[sideTree] {
			t.Fatalf("the tree's listing of %q is not kept: %+v", rel, r)
		}
	}
	before, _ := os.Stat(f.manifest)
	if st := f.runHeld(t); st.listed != 0 || st.Unchanged != len(f.want()) {
		t.Fatalf("third run: %+v, want a no-op that lists no directory", st)
	}
	if after, _ := os.Stat(f.manifest); !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("a no-op that used every kept listing rewrote the manifest")
	}
	return f
}

// TestKeptListingsSeeEveryChangeOfADirectory: once every listing is kept, a
// change of any side's directory right after the run that kept it (no
// sleep: the racy rule is what makes the identity differ) is seen, and the
// tree is exact again. Each of these fails when a kept listing is used
// without its directory's identity check.
func TestKeptListingsSeeEveryChangeOfADirectory(t *testing.T) {
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
			f := keptListings(t)
			tc.change(t, f)
			st := f.runHeld(t) // checks the tree is pristine + overlay exactly
			if st.listed == 0 {
				t.Errorf("%+v: no directory was read again", st)
			}
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

// TestListingOfADirectoryThatChangedBackIsKeptAgain: a file made and removed
// again leaves a directory with its old names but a new identity. The next
// run reads it and keeps the new listing (the manifest is rewritten once);
// the run after reads nothing.
func TestListingOfADirectoryThatChangedBackIsKeptAgain(t *testing.T) {
	f := keptListings(t)
	tmp := filepath.Join(f.pristine, "mlx/backend/cpu/editor.swp")
	if err := os.WriteFile(tmp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // older than the next lock, so kept at once
	before, _ := os.Stat(f.manifest)
	if st := f.runHeld(t); st.listed != 1 || st.Unchanged != len(f.want()) {
		t.Fatalf("%+v, want one directory listed and nothing else", st)
	}
	if after, _ := os.Stat(f.manifest); os.SameFile(before, after) {
		t.Fatal("the new listing was not kept: the manifest was not rewritten")
	}
	if st := f.runHeld(t); st.listed != 0 {
		t.Fatalf("%+v, want no directory listed", st)
	}
}

// TestListingIsNotKeptFromARacyLook: a directory that changed after the
// lock was taken (in the clock tick of the lock file or later) is not kept,
// since a change in the same tick after it was listed would not move its
// identity; the tree's directories that the run itself wrote are not kept
// either. The next run keeps both.
func TestListingIsNotKeptFromARacyLook(t *testing.T) {
	f := newFixture(t)
	time.Sleep(20 * time.Millisecond)
	lock := filepath.Join(filepath.Dir(f.tree), "lock")
	takeLock(t, lock)
	f.add(t, f.pristine, f.p, "mlx/backend/cpu/late.cpp", "// after the lock\n")
	if _, _, err := MaterializeHeld(f.pristine, f.overlay, f.tree, f.manifest, testRecords, Held{LockFile: lock}); err != nil {
		t.Fatal(err)
	}
	m := readManifest(f.manifest)
	if r := m.dirRecord("mlx/backend/cpu"); r != nil && r.has[sidePristine] {
		t.Fatalf("pristine's mlx/backend/cpu, changed after the lock, was kept: %+v", r)
	}
	if r := m.dirRecord("mlx/backend/common"); r == nil || !r.has[sidePristine] || r.has[sideTree] {
		t.Fatalf("mlx/backend/common: %+v, want pristine's listing kept and not the tree's, which the run wrote", r)
	}
	time.Sleep(20 * time.Millisecond)
	f.runHeld(t)
	m = readManifest(f.manifest)
	if r := m.dirRecord("mlx/backend/cpu"); r == nil || !r.has[sidePristine] || !r.has[sideTree] {
		t.Fatalf("the next run did not keep mlx/backend/cpu: %+v", r)
	}
}

// TestBadKeptListingIsReadAgain: kept names that this package would not
// write (a name with a slash, names out of order, a type on a side the
// record does not keep) are not used: the directory is read, the tree is
// exact, and a good record replaces the bad one.
func TestBadKeptListingIsReadAgain(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(r *dirRecord)
	}{
		{"a slash", func(r *dirRecord) { r.ents[0].name = "x/y" }},
		{"out of order", func(r *dirRecord) { r.ents[0], r.ents[1] = r.ents[1], r.ents[0] }},
		{"an unkept side", func(r *dirRecord) { r.has[sideOverlay] = false; r.ents[0].typ[sideOverlay] = typeFile }},
		{"no type", func(r *dirRecord) { r.ents[0].typ = [sides]byte{} }},
		{"a bad type", func(r *dirRecord) { r.ents[0].typ[sideTree] = 'q' }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := keptListings(t)
			m := readManifest(f.manifest)
			r := m.dirRecord("mlx/backend/common")
			if r == nil || r.n < 2 {
				t.Fatalf("no kept listing of mlx/backend/common with two names: %+v", r)
			}
			var lists [sides][]dirEnt
			if !r.decode(&lists, [sides]bool{true, true, true}) {
				t.Fatal("the kept listing does not decode")
			}
			r.ents = newDirRecord(r.rel, &r.has, &r.id, lists).ents
			tc.spoil(r)
			var buf bytes.Buffer
			if err := m.encode(&buf); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.manifest, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := readManifest(f.manifest); len(got.entries) != len(f.want()) {
				t.Fatal("the spoiled manifest is not read (its names are checked only when used)")
			}
			if st := f.runHeld(t); st.listed == 0 {
				t.Fatalf("%+v: the spoiled listing was used", st)
			}
			if st := f.runHeld(t); st.listed != 0 {
				t.Fatalf("%+v: the spoiled listing was not replaced", st)
			}
		})
	}
}

// TestV4ManifestIsRead: a manifest of the form before kept listings keeps
// its entries (an upgrade re-hashes nothing: a touched source is passed on
// as a touch, which needs the old entry) and is rewritten in the new form.
func TestV4ManifestIsRead(t *testing.T) {
	f := keptListings(t)
	m := readManifest(f.manifest)
	m.dirs = nil
	var buf bytes.Buffer
	if err := m.encode(&buf); err != nil {
		t.Fatal(err)
	}
	v5 := buf.Bytes()
	v4 := append([]byte(manifestHeaderV4), v5[len(manifestHeader):len(v5)-8]...) // no listings, not even their count
	if err := os.WriteFile(f.manifest, v4, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readManifest(f.manifest); len(got.entries) != len(f.want()) || got.dirs != nil {
		t.Fatalf("v4 manifest read as %d entries and %d listings", len(got.entries), len(got.dirs))
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(f.pristine, "mlx/array.cpp"), later, later); err != nil {
		t.Fatal(err)
	}
	if st := f.runHeld(t); st.Touched != 1 || st.Written != 0 {
		t.Fatalf("%+v, want the touch passed on and nothing written", st)
	}
	if head, _ := os.ReadFile(f.manifest); !bytes.HasPrefix(head, []byte(manifestHeader)) {
		t.Fatal("the manifest was not rewritten in the new form")
	}
}
