package cmake

import (
	"slices"
	"strings"
	"testing"
)

// TestNinjaToolReaders holds the readers to Ninja 1.11's real output
// (taken from `ninja -t ...` on a CMake build and on names Ninja quotes)
// and to each way a torn or foreign output is refused.
func TestNinjaToolReaders(t *testing.T) {
	targets, err := parseTargetsAll([]byte("cmake_object_order_depends_target_mlx: phony\nCMakeFiles/mlx.dir/mlx/c_api.cpp.o: CXX_COMPILER__mlx_Release\nout file: cp\na: b: phony\n"))
	if want := []string{"cmake_object_order_depends_target_mlx", "CMakeFiles/mlx.dir/mlx/c_api.cpp.o", "out file", "a: b"}; err != nil || !slices.Equal(targets, want) {
		t.Errorf("targets = %q, %v; want %q", targets, err, want)
	}
	inputs, err := parseInputs([]byte("'imp:x'\n'it'\\''s in'\n/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153\nord\n"))
	if want := []string{"imp:x", "it's in", "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.21153", "ord"}; err != nil || !slices.Equal(inputs, want) {
		t.Errorf("inputs = %q, %v; want %q", inputs, err, want)
	}
	deps, err := parseDeps([]byte("CMakeFiles/mlx.dir/mlx/version.cpp.o: #deps 2, deps mtime 1796137800043977489 (VALID)\n    /t/mlx/version.cpp\n    /usr/include/stdc-predef.h\n\nobj: #deps 1, deps mtime 5 (STALE)\n    a header.h\n\n"))
	if want := []string{"/t/mlx/version.cpp", "/usr/include/stdc-predef.h", "a header.h"}; err != nil || !slices.Equal(deps, want) {
		t.Errorf("deps = %q, %v; want %q", deps, err, want)
	}
	for name, c := range map[string]struct {
		parse func([]byte) ([]string, error)
		out   string
	}{
		"targets without a rule":        {parseTargetsAll, "out\n"},
		"targets torn":                  {parseTargetsAll, "out: cp\nob"},
		"inputs unquoted space":         {parseInputs, "in file\n"},
		"inputs open quote":             {parseInputs, "'in file\n"},
		"inputs bare quote":             {parseInputs, "'it's'\n"},
		"inputs empty line":             {parseInputs, "a\n\nb\n"},
		"deps fewer lines than counted": {parseDeps, "obj: #deps 2, deps mtime 5 (VALID)\n    a\n"},
		"deps more lines than counted":  {parseDeps, "obj: #deps 1, deps mtime 5 (VALID)\n    a\n    b\n\n"},
		"deps unknown state":            {parseDeps, "obj: #deps 1, deps mtime 5 (MAYBE)\n    a\n\n"},
		"deps unindented":               {parseDeps, "obj: #deps 1, deps mtime 5 (VALID)\na\n\n"},
		"deps negative count":           {parseDeps, "obj: #deps -1, deps mtime 5 (VALID)\n\n"},
	} {
		if got, err := c.parse([]byte(c.out)); err == nil {
			t.Errorf("%s: read as %q", name, got)
		}
	}
}

// ninjaQuote is Ninja's GetShellEscapedString, for the fuzzer's round trip.
func ninjaQuote(s string) string {
	plain := s != ""
	for i := 0; i < len(s); i++ {
		plain = plain && shellSafe(s[i])
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FuzzNinjaToolOutputs: no output panics a reader; a path quoted as Ninja
// quotes it reads back as itself.
func FuzzNinjaToolOutputs(f *testing.F) {
	f.Add([]byte("'it'\\''s in'\nord\n"), "it's in")
	f.Add([]byte("obj: #deps 1, deps mtime 5 (VALID)\n    a\n\n"), "a b")
	f.Add([]byte("a: b: phony\n"), "")
	f.Fuzz(func(t *testing.T, out []byte, path string) {
		_, _ = parseTargetsAll(out)
		_, _ = parseInputs(out)
		_, _ = parseDeps(out)
		if path == "" || strings.ContainsAny(path, "\n") {
			return
		}
		got, err := ninjaUnquote(ninjaQuote(path))
		if err != nil || got != path {
			t.Fatalf("%q quoted as %q reads back as %q, %v", path, ninjaQuote(path), got, err)
		}
	})
}
