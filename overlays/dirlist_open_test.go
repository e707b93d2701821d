package overlays

import (
	"os"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenDirLeavesThePollerOut: a walked directory is opened blocking
// (os.OpenFile's non-blocking open offers it to the runtime's poller, which
// a no-op paid for every directory) and close-on-exec, so no child started
// while the walk runs inherits it.
func TestOpenDirLeavesThePollerOut(t *testing.T) {
	d := t.TempDir()
	dir, err := openDir(d)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	fl, err := unix.FcntlInt(uintptr(dir), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl&unix.O_NONBLOCK != 0 {
		t.Errorf("openDir's descriptor is non-blocking (flags %#x): os.File offers it to the poller", fl)
	}
	fd, err := unix.FcntlInt(uintptr(dir), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fd&unix.FD_CLOEXEC == 0 {
		t.Error("openDir's descriptor is not close-on-exec: a child would inherit it")
	}
	if _, err := dir.readEntries(d, nil); err != nil {
		t.Errorf("reading the opened directory: %v", err)
	}
}

// TestDirIdentityIsStatsAndAllocatesNothing: a directory's identity is what
// its stat says (so identities kept by earlier runs still match), read
// without an allocation (dir.Stat made a FileInfo per walked directory).
func TestDirIdentityIsStatsAndAllocatesNothing(t *testing.T) {
	d := t.TempDir()
	dir, err := openDir(d)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	got, err := dirIdentity(dir, d)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(d)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	want := dirID{dev: uint64(st.Dev), ino: st.Ino, mtime: fi.ModTime().UnixNano(), ctime: ctimeOf(st)}
	if got != want {
		t.Errorf("dirIdentity = %+v, want %+v", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = dirIdentity(dir, d) }); n != 0 {
		t.Errorf("dirIdentity made %v allocations, want 0", n)
	}
}

// TestKeptListingMakesNoFile: a directory whose listing is kept (a
// no-op's nearly every one) is opened, identified and closed with one
// allocation, the path's C string that unix.Open makes: no *os.File is
// made for a listing that is not read (os.NewFile asked for the
// descriptor's flags and allocated for every directory).
func TestKeptListingMakesNoFile(t *testing.T) {
	d := t.TempDir()
	if err := os.Mkdir(d+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, _, id, _, err := listSide("tree", d, "", sideTree, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir.Close()
	rec := &dirRecord{}
	rec.has[sideTree], rec.id[sideTree] = true, id
	n := testing.AllocsPerRun(100, func() {
		dir, _, _, fromRec, err := listSide("tree", d, "", sideTree, rec, nil)
		if err != nil || !fromRec {
			t.Fatalf("listSide with the kept identity: from the record %v, error %v", fromRec, err)
		}
		if err := dir.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if n > 1 {
		t.Errorf("opening a directory whose listing is kept made %v allocations, want 1 (the path's C string)", n)
	}
}
