package cmake

import (
	"strings"
	"testing"
)

// FuzzFailedOutputs: every output read is a word of a "FAILED: " line of
// the log, none empty. Seeds (testdata/fuzz/FuzzFailedOutputs) are Ninja's
// failure lines for a CMake object and a custom command's two spellings.
func FuzzFailedOutputs(f *testing.F) {
	f.Fuzz(func(t *testing.T, log string) {
		for out := range FailedOutputs(log) {
			if out == "" || strings.ContainsAny(out, " \t\n") {
				t.Fatalf("output %q is not one word", out)
			}
			found := false
			for _, l := range strings.Split(log, "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "FAILED: "); ok && strings.Contains(" "+rest+" ", out) {
					found = true
				}
			}
			if !found {
				t.Fatalf("output %q is on no FAILED: line", out)
			}
		}
	})
}
