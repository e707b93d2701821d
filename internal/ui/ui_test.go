package ui

import (
	"bytes"
	"io"
	"os"
	"testing"
)

func TestPaintAndWidth(t *testing.T) {
	if got := Paint(false, Red, "FAIL"); got != "FAIL" {
		t.Errorf("Paint off = %q", got)
	}
	if got := Paint(true, Red, "FAIL"); got != "\x1b[31mFAIL\x1b[0m" {
		t.Errorf("Paint on = %q", got)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	// Neither a buffer nor a pipe is a terminal: no width, no colour, plain lines.
	for _, out := range []io.Writer{&bytes.Buffer{}, w} {
		if Width(out) != 0 || IsTerminal(out) {
			t.Errorf("%T: width %d, terminal %v", out, Width(out), IsTerminal(out))
		}
		if p := New(out, func(string) string { return "" }); p.Color || p.TTY {
			t.Errorf("%T: printer %+v", out, p)
		}
	}
	var b bytes.Buffer
	p := &Printer{W: &b}
	p.Skip("CUDA toolkit: %s", "none")
	p.Bad("cmake: missing")
	if got, want := b.String(), "  skip CUDA toolkit: none\n  FAIL cmake: missing\n"; got != want {
		t.Errorf("plain output %q, want %q", got, want)
	}
}
