package cmake

import (
	"reflect"
	"strings"
	"testing"
)

// TestShellCommands reads command lines as sh would run them: CMake's own
// quoting of custom commands (recorded from CMake 3.25's build.ninja, after
// Ninja's $$ unescaping) and the forms a command without VERBATIM may take.
func TestShellCommands(t *testing.T) {
	for _, c := range []struct {
		line string
		want [][]string
	}{
		{`cd /b && /usr/bin/hipcc -c /s/a.hip -o /b/a.o -fPIC`, [][]string{{"cd", "/b"}, {"/usr/bin/hipcc", "-c", "/s/a.hip", "-o", "/b/a.o", "-fPIC"}}},
		{`cd /b && /usr/bin/hipcc -c "/s/b c.hip" "-DQ=\"x y\"" "-DD=\$dollar" "-DB=a\\b"`, [][]string{{"cd", "/b"}, {"/usr/bin/hipcc", "-c", "/s/b c.hip", `-DQ="x y"`, "-DD=$dollar", `-DB=a\b`}}},
		{`cd /b && a ; b` + "\n\n" + `c`, [][]string{{"cd", "/b"}, {"a"}, {"b"}, {"c"}}},
		{`x 'a b' 'it'\''s' "" ''`, [][]string{{"x", "a b", "it's", "", ""}}},
		{`x a\ b "\n" \"`, [][]string{{"x", "a b", `\n`, `"`}}},
		{"x a\\\nb", [][]string{{"x", "ab"}}},
		{`x a=b#c a~b`, [][]string{{"x", "a=b#c", "a~b"}}},
		{"   ", nil},
	} {
		got, err := shellCommands(c.line)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("shellCommands(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
}

// TestShellCommandsRefusesRunTimeShell: what sh decides when it runs is
// refused with where it is, never read as literal words.
func TestShellCommandsRefusesRunTimeShell(t *testing.T) {
	for line, want := range map[string]string{
		`hipcc -c $SRC`:           "unquoted $ at byte 9",
		`hipcc -c "$SRC"`:         "$ inside the double quotes at byte 10",
		"hipcc -c `ls`":           "unquoted ` at byte 9",
		`hipcc -c *.hip`:          "unquoted * at byte 9",
		`hipcc -c a.hip | tee`:    "unquoted | at byte 15",
		`hipcc -c a.hip > log`:    "unquoted > at byte 15",
		`hipcc -c a.hip &`:        "unquoted & at byte 15",
		`hipcc -c a.hip || true`:  "unquoted | at byte 15",
		`hipcc -c ~/a.hip`:        "unquoted ~ at byte 9",
		`hipcc -c a.hip # note`:   "unquoted # at byte 15",
		`hipcc -c "a.hip`:         "double quote at byte 9 is never closed",
		`hipcc -c 'a.hip`:         "single quote at byte 9 is never closed",
		`hipcc -c a.hip\`:         "ends in a backslash",
		`&& hipcc`:                `"&&" at byte 0 has no command`,
		`cd /b && ; hipcc -c a.c`: `";" at byte 9 has no command`,
	} {
		got, err := shellCommands(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shellCommands(%q) = %q, %v; want an error with %q", line, got, err, want)
		}
	}
}

// TestHipCompiles derives entries from Ninja's view of custom commands: the
// directory a cd moved to, the source made absolute, the other commands of
// the line left out, and a HIP compile that is no fixed command reported.
func TestHipCompiles(t *testing.T) {
	e := ninjaCompdbEdge{Directory: "/b", Command: `cd /b/sub && /usr/bin/hipcc -x hip -c ../k.hip -o k.o -I/s && /usr/bin/cmake -E touch stamp`}
	got, err := hipCompiles(e)
	want := []compileEntry{{Directory: "/b/sub", File: "/b/k.hip", Arguments: []string{"/usr/bin/hipcc", "-x", "hip", "-c", "../k.hip", "-o", "k.o", "-I/s"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("hipCompiles = %+v, %v; want %+v", got, err, want)
	}
	for _, cmd := range []string{
		`cd /b && /usr/bin/ar rcs lib.a a.hip.o b.hip.o`, // no -c
		`cd /b && hipcc -c -o a.hip k.cpp`,               // .hip is -o's value
		`cd /b && hipcc -c "-include=a.hip" k.cpp`,       // an option
		`cd /b && echo $(date) > stamp`,                  // shell, but no HIP source
	} {
		if got, err := hipCompiles(ninjaCompdbEdge{Directory: "/b", Command: cmd}); err != nil || len(got) != 0 {
			t.Errorf("hipCompiles(%q) = %+v, %v; want no entry and no error", cmd, got, err)
		}
	}
	if got, err := hipCompiles(ninjaCompdbEdge{Directory: "/b", Command: `cd /b && hipcc -c k.hip -o k.o -j$(nproc)`}); err == nil {
		t.Errorf("a HIP compile with $(nproc) gave %+v and no error", got)
	}
}
