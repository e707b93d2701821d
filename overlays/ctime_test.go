package overlays

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// editInPlace rewrites path with content of the same size in the same inode
// and puts its mtime back, as an editor that keeps times or `cp -p` onto an
// existing file does. Only the ctime shows the change.
func editInPlace(t *testing.T, path, content string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(content)) != fi.Size() {
		t.Fatalf("edit of %s must keep its size %d", path, fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(content), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(path)
	if !after.ModTime().Equal(fi.ModTime()) || after.Size() != fi.Size() || ino(after) != ino(fi) {
		t.Fatal("the edit did not keep size, mtime and inode")
	}
}

// TestInPlaceEditsKeepingSizeAndMtimeAreSeen: an overlay file and a tree
// file each edited in place with size, mtime and inode kept are noticed on
// the next run (the overlay's change lands in the tree; the hand edit of the
// tree is undone), as git's index notices them through the ctime. Run after
// the racy window, so the mtime rule alone would trust both.
func TestInPlaceEditsKeepingSizeAndMtimeAreSeen(t *testing.T) {
	f := newFixture(t)
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"mlx/backend/rocm/qmm.hip", "mlx/backend/rocm/device/x.hpp"} {
		os.Chtimes(filepath.Join(f.overlay, p), old, old)
	}
	f.run(t)
	time.Sleep(20 * time.Millisecond)
	if st := f.run(t); st.Written != 0 {
		t.Fatalf("second run: %+v", st)
	}
	time.Sleep(20 * time.Millisecond)

	editInPlace(t, filepath.Join(f.overlay, "mlx/backend/rocm/qmm.hip"), "// ROCM QMM\n")
	f.o["mlx/backend/rocm/qmm.hip"] = "// ROCM QMM\n"
	editInPlace(t, filepath.Join(f.tree, "mlx/backend/rocm/device/x.hpp"), "// handx!\n")
	st := f.run(t) // f.run checks the tree equals pristine + overlay, byte for byte
	if st.Written != 2 {
		t.Fatalf("stats %+v: want the edited overlay file and the hand-edited tree file written", st)
	}
	if st := f.run(t); st.Written != 0 || st.Touched != 0 {
		t.Fatalf("the run after: %+v", st)
	}
}

func ino(fi os.FileInfo) uint64 { return statData(fi).ino }

// TestFileChangedAfterTheLockIsReadAgain: a source edited after the lock
// was taken, and a tree copy touched then, are recorded with no ctime, so
// the next run reads them again (an edit of the same size later in that
// clock tick would move none of their times); that run, under a later
// lock, records them as they are, and the one after trusts them.
func TestFileChangedAfterTheLockIsReadAgain(t *testing.T) {
	f := keptListings(t)
	lock := filepath.Join(filepath.Dir(f.manifest), "lock")
	takeLock(t, lock)
	f.add(t, f.pristine, f.p, "mlx/array.cpp", "// pristine array, edited after the lock\n")
	now := time.Now()
	if err := os.Chtimes(filepath.Join(f.tree, "mlx/array.h"), now, now); err != nil {
		t.Fatal(err)
	}
	_, m, err := MaterializeHeld(f.pristine, f.overlay, f.tree, f.manifest, testRecords, Held{LockFile: lock})
	f.check(t, m, err)
	src, tree := m.entries[m.find("mlx/array.cpp")], m.entries[m.find("mlx/array.h")]
	if src.srcCTime != 0 || tree.cTime != 0 {
		t.Fatalf("recorded ctimes: source %d, tree copy %d; want 0 for both (changed after the lock)", src.srcCTime, tree.cTime)
	}
	if other := m.entries[m.find("mlx/array.h")]; other.srcCTime == 0 {
		t.Fatal("a source older than the lock lost its ctime")
	}
	time.Sleep(20 * time.Millisecond)
	if st := f.runHeld(t); st.Written != 0 || st.Unchanged != len(f.want()) {
		t.Fatalf("%+v, want both read again and found unchanged", st)
	}
	m = readManifest(f.manifest)
	if src, tree := m.entries[m.find("mlx/array.cpp")], m.entries[m.find("mlx/array.h")]; src.srcCTime == 0 || tree.cTime == 0 {
		t.Fatalf("not recorded once older than the lock: source %d, tree copy %d", src.srcCTime, tree.cTime)
	}
	before, _ := os.Stat(f.manifest)
	f.runHeld(t)
	if after, _ := os.Stat(f.manifest); !os.SameFile(before, after) {
		t.Fatal("the run after rewrote the manifest: it did not trust them")
	}
}

// TestHandEditIsNamedAfterASourceReadAgain: a tree copy edited by hand is
// named as such (HandEdited) even when its source was read again because
// the last run kept no ctime for it (touched after the lock, its content
// the same).
func TestHandEditIsNamedAfterASourceReadAgain(t *testing.T) {
	f := keptListings(t)
	lock := filepath.Join(filepath.Dir(f.manifest), "lock")
	takeLock(t, lock)
	src := filepath.Join(f.overlay, "mlx/backend/rocm/qmm.hip")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(src, old, old); err != nil { // its ctime now, after the lock
		t.Fatal(err)
	}
	_, m, err := MaterializeHeld(f.pristine, f.overlay, f.tree, f.manifest, testRecords, Held{LockFile: lock})
	f.check(t, m, err)
	if e := m.entries[m.find("mlx/backend/rocm/qmm.hip")]; e.srcCTime != 0 {
		t.Fatalf("source ctime %d kept, want 0 (touched after the lock)", e.srcCTime)
	}
	if err := os.WriteFile(filepath.Join(f.tree, "mlx/backend/rocm/qmm.hip"), []byte("// fixed in the tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	st := f.runHeld(t)
	if len(st.HandEdited) != 1 || st.HandEdited[0] != "mlx/backend/rocm/qmm.hip" {
		t.Fatalf("%+v, want the tree copy named as edited by hand", st)
	}
}
