package overlays

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestListDirMatchesReadDir lists a directory big enough to take several
// reads (3,000 long names, over 32 KiB of records), with every kind
// of entry, and compares names and types with os.ReadDir.
func TestListDirMatchesReadDir(t *testing.T) {
	d := t.TempDir()
	for i := range 3000 {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("file-%04d-%s.h", i, strings.Repeat("x", 40))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(d, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, got, err := listSideOf("test", d, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeDir(fd)
	want, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("listSide gave %d entries, os.ReadDir %d", len(got), len(want))
	}
	kinds := map[fs.FileMode]int{}
	for i, w := range want {
		wt := w.Type() & fs.ModeType
		if wt&^(fs.ModeDir|fs.ModeSymlink) != 0 {
			wt = fs.ModeIrregular
		}
		if got[i].name != w.Name() || got[i].typ != wt {
			t.Errorf("entry %d: %q %v, want %q %v", i, got[i].name, got[i].typ, w.Name(), wt)
		}
		kinds[got[i].typ]++
	}
	if kinds[fs.ModeDir] != 1 || kinds[fs.ModeSymlink] != 1 || kinds[fs.ModeIrregular] != 1 || kinds[0] != 3000 {
		t.Errorf("kinds %v, want 3000 files, one directory, one link, one pipe", kinds)
	}
	// The descriptor is the directory's: fstatat relative to it works.
	if _, typ, err := lstatAt(fd, "sub"); err != nil || typ != fs.ModeDir {
		t.Errorf("lstatAt(fd, sub) = %v, %v", typ, err)
	}
	if got := irregularType(fd, "pipe"); got != fs.ModeNamedPipe.String() {
		t.Errorf("irregularType(pipe) = %q", got)
	}
}

func TestListDirMissingAndNotADirectory(t *testing.T) {
	d := t.TempDir()
	if fd, es, err := listSideOf("test", d, "nope"); fd != -1 || es != nil || err != nil {
		t.Errorf("missing directory: %d, %v, %v; want -1, nil, nil", fd, es, err)
	}
	f := filepath.Join(d, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, _, err := listSideOf("tree", f, "")
	if err == nil || !strings.Contains(err.Error(), "reading tree directory "+f) || fd != -1 {
		t.Errorf("a file as a directory: %d, %v; want an error naming %s", fd, err, f)
	}
	// A NUL would cut the path short for the kernel: refused, not opened as d.
	if fd, _, err := listSideOf("tree", d, "sub\x00dir"); err == nil || fd != -1 {
		t.Errorf("a path with a NUL: %d, %v; want an error", fd, err)
	}
}

// TestFstatatDoesNotFollowLinks: fstatat describes a link itself, as lstat
// does.
func TestFstatatDoesNotFollowLinks(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	fd, _, err := listSideOf("test", d, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeDir(fd)
	var st unix.Stat_t
	if err := fstatat(fd, "link", &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFLNK {
		t.Errorf("fstatat followed the link: mode %o, %v", st.Mode, err)
	}
}

// listSideOf lists root/rel from the directory itself, with no record.
func listSideOf(what, root, rel string) (int, []dirEnt, error) {
	fd, es, _, _, err := listSide(what, root, rel, sideTree, nil, nil)
	return fd, es, err
}
