package flow

import (
	"fmt"
	"strings"
	"testing"
)

// TestParseNmLineHexLetterTypes: a local symbol whose type letter is also a
// hex digit (b, d) is read after its address, not at the letter's first
// occurrence inside the address.
func TestParseNmLineHexLetterTypes(t *testing.T) {
	for _, c := range []struct{ line, typ, sym string }{
		{"k.o:00000000000000bd b counter", "b", "counter"},
		{"k.o:000000000000000d d table", "d", "table"},
		{"k.o:0000000000000010 T n::S::m(int, char) const", "T", "n::S::m(int, char) const"},
		{"k.o:                 U g(int)", "U", "g(int)"},
	} {
		file, typ, sym, ok := parseNmLine(c.line)
		if !ok || file != "k.o" || typ != c.typ || sym != c.sym {
			t.Errorf("%q: %q %q %q %v, want k.o %q %q", c.line, file, typ, sym, ok, c.typ, c.sym)
		}
	}
}

// FuzzParseNmLine: any line parses or not without a panic; a symbol nm
// prints, with or without an address, reads back with its object, type and
// name. Seeds (testdata/fuzz/FuzzParseNmLine) are lines of binutils 2.40's
// nm -C --print-file-name on an object compiled here.
func FuzzParseNmLine(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string, addr uint64, typ byte, sym string) {
		if file, ty, s, ok := parseNmLine(line); ok {
			if !strings.HasSuffix(file, ".o") || len(ty) != 1 || s == "" || s != strings.TrimSpace(s) {
				t.Fatalf("%q read as %q %q %q", line, file, ty, s)
			}
		}
		sym = strings.TrimSpace(sym)
		if sym == "" || strings.ContainsAny(sym, "\n") || typ <= ' ' || typ >= 0x7f {
			return
		}
		for _, l := range []string{fmt.Sprintf("dir/k.o:%016x %c %s", addr, typ, sym), fmt.Sprintf("dir/k.o:                 %c %s", typ, sym)} {
			file, ty, s, ok := parseNmLine(l)
			if !ok || file != "dir/k.o" || ty != string(typ) || s != sym {
				t.Fatalf("%q read as %q %q %q (%v)", l, file, ty, s, ok)
			}
		}
	})
}
