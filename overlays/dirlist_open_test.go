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
	dir, err := openDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	fl, err := unix.FcntlInt(dir.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fl&unix.O_NONBLOCK != 0 {
		t.Errorf("openDir's descriptor is non-blocking (flags %#x): os.File offers it to the poller", fl)
	}
	fd, err := unix.FcntlInt(dir.Fd(), unix.F_GETFD, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fd&unix.FD_CLOEXEC == 0 {
		t.Error("openDir's descriptor is not close-on-exec: a child would inherit it")
	}
	if _, err := dir.ReadDir(-1); err != nil {
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
	got, err := dirIdentity(dir)
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
	if n := testing.AllocsPerRun(100, func() { _, _ = dirIdentity(dir) }); n != 0 {
		t.Errorf("dirIdentity made %v allocations, want 0", n)
	}
}
