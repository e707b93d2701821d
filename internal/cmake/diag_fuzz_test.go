package cmake

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParseDiagnostics: every diagnostic is found once, says what the log
// says (its message is in the log), and a located one, rendered as
// file:line:col: error: message, reads back as itself. Seeds
// (testdata/fuzz/FuzzParseDiagnostics) are real gcc and ninja output of a
// failing build recorded here, and nvcc/ld forms.
func FuzzParseDiagnostics(f *testing.F) {
	f.Fuzz(func(t *testing.T, log string) {
		ds := ParseDiagnostics(log)
		seen := map[string]bool{}
		for _, d := range ds {
			if seen[d.String()] {
				t.Fatalf("%q reported twice", d.String())
			}
			seen[d.String()] = true
			if !strings.Contains(log, d.Message) || !strings.Contains(log, d.File) || d.Line < 0 || d.Col < 0 {
				t.Fatalf("diagnostic %+v is not what the log says", d)
			}
			if d.File == "" || d.Line == 0 || strings.Contains(d.File, ":") || strings.HasPrefix(d.File, "/usr/bin/ld") {
				continue
			}
			if back := ParseDiagnostics(d.String()); !reflect.DeepEqual(back, []Diagnostic{d}) {
				t.Fatalf("%q reads back as %+v, want %+v", d.String(), back, d)
			}
		}
	})
}
