package cmake

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzNinjaProgress: Ninja's output, from a pipe or a terminal, however it
// is split into writes, gives the same log, steps and shown lines as when
// written at once; the log holds every byte of it but the line ends and
// escape codes, and no control code; every finish line is one step, shown
// as one plain line off a TTY; a TTY line fits the terminal. Seeds
// (testdata/fuzz/FuzzNinjaProgress) are real Ninja 1.11 output recorded on
// this machine: on a pipe with the older "%f/%t" status, and on mlxbuild's
// pseudo-terminal with today's.
func FuzzNinjaProgress(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, width uint8) {
		columns := 21 + int(width)
		for _, tty := range []bool{false, true} {
			var log1, out1 bytes.Buffer
			whole := newProgress(&log1, &out1, tty, columns)
			whole.Write(data)
			whole.finish()
			var log2, out2 bytes.Buffer
			split := newProgress(&log2, &out2, tty, columns)
			c := int(cut) % (len(data) + 1)
			split.Write(data[:c])
			split.Write(data[c:])
			split.finish()
			if log1.String() != log2.String() || !reflect.DeepEqual(whole.steps, split.steps) || out1.String() != out2.String() {
				t.Fatalf("split at %d: log %q, steps %+v, shown %q; whole: %q, %+v, %q",
					c, log2.String(), split.steps, out2.String(), log1.String(), whole.steps, out1.String())
			}
			log := log1.String()
			if strings.ContainsAny(log, "\r\x1b") {
				t.Fatalf("the log keeps control codes: %q", log)
			}
			if !bytes.ContainsRune(data, 0x1b) {
				drop := strings.NewReplacer("\r", "", "\n", "")
				if drop.Replace(log) != drop.Replace(string(data)) {
					t.Fatalf("the log %q lost or added bytes of %q", log, data)
				}
				if !bytes.ContainsRune(data, '\r') && log != string(data) {
					t.Fatalf("plain output is not logged byte for byte: %q", log)
				}
			}
			finishes := 0
			for l := range strings.Lines(log) {
				if st, ok := parseStatus(strings.TrimSuffix(l, "\n")); ok && !st.starts() {
					finishes++
				}
			}
			if len(whole.steps) != finishes {
				t.Fatalf("%d steps from %d finish lines", len(whole.steps), finishes)
			}
			shown := out1.String()
			if !tty {
				if n := strings.Count(shown, "\n"); n != len(whole.steps) {
					t.Fatalf("%d lines shown for %d steps:\n%s", n, len(whole.steps), shown)
				}
				continue
			}
			for _, l := range strings.Split(strings.TrimSuffix(shown, "\n"), "\r\x1b[K")[1:] {
				if len(l) > columns-1 {
					t.Fatalf("a TTY line of %d bytes for %d columns: %q", len(l), columns, l)
				}
			}
		}
	})
}

// FuzzTermLines: the line splitter of terminal output never panics, keeps
// no control code, and cuts the same lines however the stream is split.
// Seeds (testdata/fuzz/FuzzTermLines): a redrawn status with coloured
// output after it, and escape sequences cut or nested.
func FuzzTermLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		collect := func(parts ...[]byte) []string {
			var s termLines
			var got []string
			emit := func(l string, end lineEnd) { got = append(got, l+string(rune('0'+end))) }
			for _, p := range parts {
				s.write(p, emit)
			}
			s.flush(emit)
			return got
		}
		c := int(cut) % (len(data) + 1)
		whole, split := collect(data), collect(data[:c], data[c:])
		if !reflect.DeepEqual(whole, split) {
			t.Fatalf("split at %d: %q, whole: %q", c, split, whole)
		}
		for _, l := range whole {
			if strings.ContainsAny(l, "\r\n\x1b") {
				t.Fatalf("line %q keeps a control code", l)
			}
		}
	})
}
