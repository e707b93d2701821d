package linkplan

import (
	"slices"
	"strings"
	"testing"
)

// readResponseFile is GCC's reading of a response file (libiberty's
// buildargv), which Clang's GNU tokenizer matches for what ResponseFile
// writes: white space separates; a backslash makes the next character
// itself, inside quotes too; single and double quotes group.
func readResponseFile(s string) []string {
	var args []string
	isSpace := func(c byte) bool { return strings.IndexByte(" \t\n\v\f\r", c) >= 0 }
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i == len(s) {
			return args
		}
		var arg []byte
		var bs, sq, dq bool
		for ; i < len(s) && (bs || sq || dq || !isSpace(s[i])); i++ {
			switch c := s[i]; {
			case bs:
				bs = false
				arg = append(arg, c)
			case c == '\\':
				bs = true
			case sq:
				if c == '\'' {
					sq = false
				} else {
					arg = append(arg, c)
				}
			case dq:
				if c == '"' {
					dq = false
				} else {
					arg = append(arg, c)
				}
			case c == '\'':
				sq = true
			case c == '"':
				dq = true
			default:
				arg = append(arg, c)
			}
		}
		args = append(args, string(arg))
	}
}

func TestResponseFileEscapesWhatGCCReads(t *testing.T) {
	args := []string{"-I/home/a/My Projects/engine/cache/cpu/tree", `-DNAME="x"`, `C:\dir`, "it's", "\ttab", "", "-lmlx"}
	got := ResponseFile(args)
	want := `-I/home/a/My\ Projects/engine/cache/cpu/tree -DNAME=\"x\" C:\\dir it\'s \	tab "" -lmlx` + "\n"
	if got != want {
		t.Errorf("ResponseFile:\n got %q\nwant %q", got, want)
	}
	if back := readResponseFile(got); !slices.Equal(back, args) {
		t.Errorf("read back %q, want %q", back, args)
	}
	// Plain paths are written as they are: `$(cat ldflags.txt)` keeps
	// working for them.
	if plain := ResponseFile([]string{"/usr/lib/libmlx.a", "-Wl,-rpath,/opt/rocm/lib"}); plain != "/usr/lib/libmlx.a -Wl,-rpath,/opt/rocm/lib\n" {
		t.Errorf("plain arguments: %q", plain)
	}
}

// FuzzResponseFile: whatever the arguments (NUL separates them in the
// input; a plan never holds a newline, so none is made), GCC's reading of
// the rendered line gives them back, on one line.
func FuzzResponseFile(f *testing.F) {
	f.Add("-I/My Projects/x\x00-DA=\"b c\"\x00\x00back\\slash\x00it's")
	f.Fuzz(func(t *testing.T, in string) {
		in = strings.ReplaceAll(in, "\n", "")
		args := strings.Split(in, "\x00")
		got := ResponseFile(args)
		if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
			t.Fatalf("not one line: %q", got)
		}
		if back := readResponseFile(got); !slices.Equal(back, args) {
			t.Errorf("%q read back as %q, want %q", got, back, args)
		}
	})
}
