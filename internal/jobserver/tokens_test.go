package jobserver

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// TestTakeFromPipe: tokens free in a pipe jobserver are taken up to max
// without waiting, the pipe's own descriptor stays blocking, and Release
// writes the same bytes back.
func TestTakeFromPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.Write([]byte("ab")); err != nil {
		t.Fatal(err)
	}
	a, _, err := FromMakeflags("-j --jobserver-auth=" + strconv.Itoa(int(r.Fd())) + "," + strconv.Itoa(int(w.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	tk, err := Take(a, 5)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Count() != 2 {
		t.Fatalf("took %d tokens of 2 free", tk.Count())
	}
	if fl, err := fcntlFlags(int(r.Fd())); err != nil || fl&syscall.O_NONBLOCK != 0 {
		t.Errorf("the inherited read end became non-blocking (flags %#x, %v)", fl, err)
	}
	if err := tk.Release(); err != nil {
		t.Fatal(err)
	}
	if err := tk.Release(); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 3)
	n, _ := r.Read(back)
	if string(back[:n]) != "ab" {
		t.Errorf("the pipe holds %q after Release, want the two tokens \"ab\"", back[:n])
	}
	// max caps what is taken.
	if _, err := w.Write([]byte("xyz")); err != nil {
		t.Fatal(err)
	}
	tk, err = Take(a, 1)
	if err != nil || tk.Count() != 1 {
		t.Fatalf("Take(max 1) took %v, %v", tk, err)
	}
	if err := tk.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestTakeFromFifo: GNU make 4.4's fifo:PATH jobserver.
func TestTakeFromFifo(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "jobserver")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	server, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if _, err := server.Write([]byte("+++")); err != nil {
		t.Fatal(err)
	}
	tk, err := Take(Auth{R: -1, W: -1, Fifo: fifo}, 8)
	if err != nil || tk.Count() != 3 {
		t.Fatalf("took %v, %v; want the 3 tokens", tk, err)
	}
	if err := tk.Release(); err != nil {
		t.Fatal(err)
	}
	tk, err = Take(Auth{R: -1, W: -1, Fifo: fifo}, 8)
	if err != nil || tk.Count() != 3 {
		t.Fatalf("after Release took %v, %v; want the 3 tokens again", tk, err)
	}
	if err := tk.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestTakeNotInherited: a jobserver whose descriptors are not open (a make
// recipe without the + prefix) is an error that says so.
func TestTakeNotInherited(t *testing.T) {
	if _, err := Take(Auth{R: 987, W: 988}, 2); err == nil {
		t.Fatal("Take from closed descriptors succeeded")
	}
}

func fcntlFlags(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
