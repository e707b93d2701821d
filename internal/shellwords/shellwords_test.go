package shellwords

import (
	"reflect"
	"strings"
	"testing"
)

// TestCommands reads command lines as sh would run them: CMake's own
// quoting of custom commands (recorded from CMake 3.25's build.ninja, after
// Ninja's $$ unescaping) and the forms a command without VERBATIM may take.
func TestCommands(t *testing.T) {
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
		got, err := Commands(c.line)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Commands(%q) = %q, %v; want %q", c.line, got, err, c.want)
		}
	}
}

// TestCommandsRefusesRunTimeShell: what sh decides when it runs is
// refused with where it is, never read as literal words.
func TestCommandsRefusesRunTimeShell(t *testing.T) {
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
		got, err := Commands(line)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Commands(%q) = %q, %v; want an error with %q", line, got, err, want)
		}
	}
}
