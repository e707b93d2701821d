package overlays

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestListDirTypes: listSide gives every kind of entry, sorted by name, with
// the types the walk tells apart; irregularType names what a pipe is.
func TestListDirTypes(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "file"), nil, 0o755); err != nil {
		t.Fatal(err)
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
	dir, got, err := listSideOf("test", d, "")
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	want := []dirEnt{{"file", 0}, {"link", fs.ModeSymlink}, {"pipe", fs.ModeIrregular}, {"sub", fs.ModeDir}}
	if len(got) != len(want) {
		t.Fatalf("listSide gave %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %v, want %v", i, got[i], want[i])
		}
	}
	if got := irregularType(filepath.Join(d, "pipe")); got != fs.ModeNamedPipe.String() {
		t.Errorf("irregularType(pipe) = %q", got)
	}
	// The open directory is the listed one: lstat relative to it works.
	if _, typ, err := lstat(dir, "sub"); err != nil || typ != fs.ModeDir {
		t.Errorf("lstat(dir, sub) = %v, %v", typ, err)
	}
	if _, typ, err := lstat(dir, "pipe"); err != nil || typ != fs.ModeIrregular {
		t.Errorf("lstat(dir, pipe) = %v, %v", typ, err)
	}
}

func TestListDirMissingAndNotADirectory(t *testing.T) {
	d := t.TempDir()
	if dir, es, err := listSideOf("test", d, "nope"); dir.opened() || es != nil || err != nil {
		t.Errorf("missing directory: %v, %v, %v; want none opened, nil, nil", dir, es, err)
	}
	f := filepath.Join(d, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := listSideOf("tree", f, ""); err == nil || err.Error() != "overlays: reading tree directory "+f+": not a directory; check its permissions" {
		t.Errorf("a file as a directory: %v; want one error naming %s once", err, f)
	}
	// A named pipe where a directory was is refused, not waited on for a
	// writer.
	pipe := filepath.Join(d, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := listSideOf("tree", pipe, ""); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a pipe as a directory: %v; want an error", err)
	}
	// A NUL would cut the path short for the kernel: refused, not opened as d.
	if _, _, err := listSideOf("tree", d, "sub\x00dir"); err == nil || !strings.Contains(err.Error(), "reading tree directory") {
		t.Errorf("a path with a NUL: %v; want an error", err)
	}
}

// TestLstatDoesNotFollowLinks: lstat describes a link itself, and an
// executable regular file as one.
func TestLstatDoesNotFollowLinks(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "file"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	dir, err := openDir(d)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	if s, typ, err := lstat(dir, "link"); err != nil || typ != fs.ModeSymlink || s.kind != kindLink || s.size != 4 {
		t.Errorf("lstat(link) = %+v, %v, %v; want the link itself", s, typ, err)
	}
	if s, typ, err := lstat(dir, "file"); err != nil || typ != 0 || s.kind != kindExec || s.size != 1 {
		t.Errorf("lstat(file) = %+v, %v, %v", s, typ, err)
	}
	if _, _, err := lstat(dir, "nope"); err != syscall.ENOENT {
		t.Errorf("lstat(missing) error %v, want the bare ENOENT", err)
	}
}

// listSideOf lists root/rel from the directory itself, with no record.
func listSideOf(what, root, rel string) (dirFD, []dirEnt, error) {
	dir, es, _, _, err := listSide(what, root, rel, sideTree, nil, nil)
	return dir, es, err
}

// TestLstatAllocatesNothing: on Linux (amd64, arm64) a file's stat copies
// no name to the heap (unix.Fstatat made one allocation per file, 2,000 in
// a real-shape no-op); elsewhere it may make that one. A name too long for
// the stack buffer, or holding a NUL, gets the kernel's and unix's answers.
func TestLstatAllocatesNothing(t *testing.T) {
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := openDir(d)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	want := 1.0
	if runtime.GOOS == "linux" && (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") {
		want = 0
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, _, err := lstat(dir, "file"); err != nil {
			t.Fatal(err)
		}
	}); n > want {
		t.Errorf("lstat made %v allocations, want %v", n, want)
	}
	if _, _, err := lstat(dir, strings.Repeat("a", 256)); err != syscall.ENAMETOOLONG {
		t.Errorf("lstat of a 256-byte name: %v, want ENAMETOOLONG", err)
	}
	if _, _, err := lstat(dir, "fi\x00le"); err != syscall.EINVAL {
		t.Errorf("lstat of a name holding a NUL: %v, want EINVAL", err)
	}
}
