package pty

import (
	"errors"
	"io"
	"syscall"
	"testing"

	"golang.org/x/term"
)

// TestOpen: the slave is a terminal of the size asked for, then of the
// size Resize sets; what is written to it reaches the master unchanged
// ("\n" not turned into "\r\n"); once the slave is closed the master's
// read ends with EIO.
func TestOpen(t *testing.T) {
	master, slave, err := Open(123, 45)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	if !term.IsTerminal(int(slave.Fd())) {
		t.Error("the slave is no terminal")
	}
	if w, h, err := term.GetSize(int(slave.Fd())); err != nil || w != 123 || h != 45 {
		t.Errorf("size %dx%d, %v; want 123x45", w, h, err)
	}
	if err := Resize(slave, 60, 20); err != nil {
		t.Fatal(err)
	}
	if w, h, _ := term.GetSize(int(slave.Fd())); w != 60 || h != 20 {
		t.Errorf("after Resize: %dx%d, want 60x20", w, h)
	}
	if _, err := io.WriteString(slave, "a\nb\r\x1b[K\n"); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	got, err := io.ReadAll(master)
	if string(got) != "a\nb\r\x1b[K\n" || !errors.Is(err, syscall.EIO) {
		t.Errorf("read %q, %v; want the bytes as written, then EIO", got, err)
	}
}
