package reportfile

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func target(path string) Target {
	return Target{Path: path, What: "test report", Variable: "MLXBUILD_REPORT"}
}

// TestCharDevice: /dev/null is written into and stays a device; nothing is
// created beside it.
func TestCharDevice(t *testing.T) {
	if err := Write(context.Background(), target("/dev/null"), []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Lstat("/dev/null")
	if err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", st.Mode(), err)
	}
	after, _ := os.ReadDir("/dev")
	for _, e := range after {
		if strings.HasPrefix(e.Name(), ".null") {
			t.Errorf("left %s in /dev", e.Name())
		}
	}
}

// TestLinkToDevice: a link to a device (as /dev/stdout is) stays a link,
// and the device gets the content.
func TestLinkToDevice(t *testing.T) {
	link := filepath.Join(t.TempDir(), "out.json")
	if err := os.Symlink("/dev/null", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), target(link), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if to, err := os.Readlink(link); err != nil || to != "/dev/null" {
		t.Errorf("the link was replaced: %q %v", to, err)
	}
}

// TestLinkToRegular: the link stays a link, its target gets the content
// (atomically: the target's folder holds no temporary file after).
func TestLinkToRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "reports", "real.json")
	if err := os.Mkdir(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink("reports/real.json", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "chain.json")
	if err := os.Symlink("r.json", chain); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), target(chain), []byte("new")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, chain} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	st, err := os.Stat(file)
	if got, _ := os.ReadFile(file); string(got) != "new" || err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("target holds %q, mode %v (%v); want %q, its own mode 0600", got, st.Mode(), err, "new")
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
		t.Errorf("the target's folder holds %d entries, want 1", len(ents))
	}
}

// TestDanglingLink: a link to a file not yet written creates the file,
// and the link stays.
func TestDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink("new.json", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), target(link), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "new.json")); err != nil || string(got) != "x" {
		t.Errorf("target = %q, %v", got, err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

// TestFIFOWithReader: a FIFO is written into (its reader gets the report)
// and stays a FIFO.
func TestFIFOWithReader(t *testing.T) {
	fifo, r := fifoWithReader(t)
	if err := Write(context.Background(), target(fifo), []byte("report\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "report\n" {
		t.Errorf("reader got %q, %v", buf, err)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", st.Mode())
	}
}

// TestProcFDLink: a link to /proc/self/fd/N (the link to
// stdout) writes into what the descriptor is, here a pipe, and stays a link.
func TestProcFDLink(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	link := filepath.Join(t.TempDir(), "out.json")
	if err := os.Symlink(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), link); err != nil {
		t.Fatal(err)
	}
	if err := Write(context.Background(), target(link), []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "{}\n" {
		t.Errorf("pipe got %q, %v", buf, err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

// TestFIFOWithoutReader: no reader is an error at once (no hang), of kind
// configuration, naming the variable.
func TestFIFOWithoutReader(t *testing.T) {
	fifo := newFIFO(t)
	err := Write(context.Background(), target(fifo), []byte("x"))
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "no process reads") || !strings.Contains(err.Error(), "MLXBUILD_REPORT") {
		t.Errorf("err = %v", err)
	}
}

// TestFIFOStoppedReader: a reader that never reads (a full pipe) holds the
// write only until ctx is done.
func TestFIFOStoppedReader(t *testing.T) {
	fifo, _ := fifoWithReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Write(ctx, target(fifo), make([]byte, 4<<20)) }() // more than a pipe holds
	cancel()
	if err := <-done; err == nil || fail.KindOf(err) != fail.Interrupted {
		t.Errorf("err = %v, want an interrupt", err)
	}
}

// TestRefused: a missing folder, a directory and a socket are
// configuration errors naming the path and the variable; nothing is
// created.
func TestRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	sock := filepath.Join(dir, "s.sock")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	for path, why := range map[string]string{
		filepath.Join(dir, "no", "such", "r.json"): "its folder " + filepath.Join(dir, "no", "such") + " does not exist",
		filepath.Join(file, "r.json"):              "not a folder",
		dir:                                        "it is a directory",
		sock:                                       "it is a socket",
	} {
		err := Write(context.Background(), target(path), []byte("x"))
		if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "MLXBUILD_REPORT") {
			t.Errorf("%s: err = %v, want a configuration error with %q", path, err, why)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("the missing folder was created")
	}
}

// TestNewAndRegular: a new file is created 0644, a regular file replaced
// keeping its mode.
func TestNewAndRegular(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	for _, s := range []string{"one", "two"} {
		if err := Write(context.Background(), target(path), []byte(s)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != s {
			t.Errorf("file = %q, want %q", got, s)
		}
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
}

func newFIFO(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "r.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return fifo
}

// fifoWithReader makes a FIFO and a reader of it; O_RDWR opens at once on
// Linux and keeps a reader without blocking.
func fifoWithReader(t *testing.T) (string, *os.File) {
	t.Helper()
	fifo := newFIFO(t)
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return fifo, r
}
