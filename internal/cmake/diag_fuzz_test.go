package cmake

import (
	"path/filepath"
	"reflect"
	"strconv"
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
			d.Via = nil // the context is other lines of the log
			if back := ParseDiagnostics(d.String()); !reflect.DeepEqual(back, []Diagnostic{d}) {
				t.Fatalf("%q reads back as %+v, want %+v", d.String(), back, d)
			}
		}
	})
}

// FuzzCMakeError: CMake's first error is found only where the log has one,
// a located one is absolute under the source with the line CMake gave, and
// every word of its message is in the log. Seeds
// (testdata/fuzz/FuzzCMakeError) are CMake 3.25's own output of a
// FATAL_ERROR in a subdirectory, of find_package with its hint paragraphs,
// and of a missing source directory.
func FuzzCMakeError(f *testing.F) {
	f.Fuzz(func(t *testing.T, log string) {
		d, ok := cmakeError(log, "/src")
		if !ok {
			if !reflect.DeepEqual(d, Diagnostic{}) {
				t.Fatalf("no error, but %+v", d)
			}
			return
		}
		if !strings.Contains(log, "CMake Error") {
			t.Fatalf("%+v found in a log without CMake Error", d)
		}
		if d.File != "" && !filepath.IsAbs(d.File) {
			t.Fatalf("located error %+v: the file is not absolute", d)
		}
		// Line is 0 only for a number past int.
		if d.File != "" && d.Line != 0 && !strings.Contains(log, ":"+strconv.Itoa(d.Line)+" (") {
			t.Fatalf("located error %+v: not the line CMake gave", d)
		}
		for _, w := range strings.Fields(d.Message) {
			if !strings.Contains(log, w) {
				t.Fatalf("the message word %q is not in the log", w)
			}
		}
	})
}
