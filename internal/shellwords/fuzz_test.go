package shellwords

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzCommands: any input either fails or splits into commands of
// words that, quoted back for sh (single quotes, as a shell-agnostic writer
// would) and joined by " && ", split into the very same commands; a line of
// plain words splits at its blanks and tabs, as sh's IFS does. Seeds
// (testdata/fuzz/FuzzCommands) are CMake 3.25 custom commands as
// `ninja -t compdb` printed them, and quoting edge cases.
func FuzzCommands(f *testing.F) {
	f.Fuzz(func(t *testing.T, line string) {
		cmds, err := Commands(line)
		if err != nil {
			return
		}
		var back []string
		for _, argv := range cmds {
			if len(argv) == 0 {
				t.Fatalf("%q gave an empty command", line)
			}
			var q []string
			for _, a := range argv {
				q = append(q, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
			}
			back = append(back, strings.Join(q, " "))
		}
		again, err := Commands(strings.Join(back, " && "))
		if err != nil || !reflect.DeepEqual(again, cmds) {
			t.Fatalf("%q split as %q; quoted back it splits as %q, %v", line, cmds, again, err)
		}
		if !strings.ContainsAny(line, "\\'\"\n;&") {
			// sh splits words at blanks and tabs only (IFS), not at \v or \f.
			f := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
			if len(f) > 0 && !reflect.DeepEqual(cmds, [][]string{f}) {
				t.Fatalf("plain words %q split as %q, want %q", line, cmds, f)
			}
		}
	})
}
