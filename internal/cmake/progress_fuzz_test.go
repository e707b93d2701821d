package cmake

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzNinjaProgress: Ninja's output, however the pipe splits it, reaches
// the log byte for byte and gives the same steps as when written at once;
// every step comes from one status line and is shown as one line of plain
// output; a TTY line fits the terminal. Seeds (testdata/fuzz/FuzzNinjaProgress)
// are real ninja 1.11 output with mlxbuild's NINJA_STATUS, of a build and
// of a failing compile, recorded on this machine.
func FuzzNinjaProgress(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, width uint8) {
		var log1, out1 bytes.Buffer
		whole := newProgress(&log1, &out1, false, 0)
		whole.Write(data)
		whole.finish()
		var log2, out2 bytes.Buffer
		split := newProgress(&log2, &out2, false, 0)
		c := int(cut) % (len(data) + 1)
		split.Write(data[:c])
		split.Write(data[c:])
		split.finish()
		if !bytes.Equal(log1.Bytes(), data) || !bytes.Equal(log2.Bytes(), data) {
			t.Fatal("the log is not Ninja's output byte for byte")
		}
		if !reflect.DeepEqual(whole.steps, split.steps) || out1.String() != out2.String() {
			t.Fatalf("split at %d: steps %+v, whole: %+v", c, split.steps, whole.steps)
		}
		status := 0
		for _, l := range strings.Split(string(data), "\n") {
			if statusRe.MatchString(strings.TrimRight(l, "\r")) {
				status++
			}
		}
		if len(whole.steps) != status {
			t.Fatalf("%d steps from %d status lines", len(whole.steps), status)
		}
		if n := strings.Count(out1.String(), "\n"); n != len(whole.steps) {
			t.Fatalf("%d lines shown for %d steps:\n%s", n, len(whole.steps), out1.String())
		}
		w := 20 + int(width)
		for _, s := range whole.steps {
			if got := shorten("[1/2] "+s.Display, w); len(got) > w {
				t.Fatalf("shortened to %d bytes for a width of %d: %q", len(got), w, got)
			}
		}
	})
}
