package lazyregexp

import (
	"reflect"
	"regexp"
	"testing"
)

// TestCompiledOnFirstUse: New compiles nothing (a bad pattern does not
// panic until it is used, with regexp's own message), and every method
// answers what *regexp.Regexp answers.
func TestCompiledOnFirstUse(t *testing.T) {
	bad := New(`(`)
	for range 2 { // every use, not only the first
		func() {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("a bad pattern compiled")
				}
				if s, _ := r.(string); !regexp.MustCompile(`missing closing \)`).MatchString(s) {
					t.Errorf("panic %v lacks regexp's message", r)
				}
			}()
			bad.MatchString("x")
		}()
	}

	const expr, text = `(\w+)=(\d+)`, "a=1 b=22 c=x"
	lazy, eager := New(expr), regexp.MustCompile(expr)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"String", lazy.String(), eager.String()},
		{"Regexp", lazy.Regexp().String(), expr},
		{"Match", lazy.Match([]byte(text)), true},
		{"MatchString", lazy.MatchString("none"), false},
		{"FindString", lazy.FindString(text), eager.FindString(text)},
		{"FindSubmatch", lazy.FindSubmatch([]byte(text)), eager.FindSubmatch([]byte(text))},
		{"FindStringSubmatch", lazy.FindStringSubmatch(text), []string{"a=1", "a", "1"}},
		{"FindStringSubmatchIndex", lazy.FindStringSubmatchIndex(text), eager.FindStringSubmatchIndex(text)},
		{"FindAllIndex", lazy.FindAllIndex([]byte(text), -1), eager.FindAllIndex([]byte(text), -1)},
		{"FindAllString", lazy.FindAllString(text, -1), []string{"a=1", "b=22"}},
		{"FindAllStringSubmatch", lazy.FindAllStringSubmatch(text, 1), eager.FindAllStringSubmatch(text, 1)},
		{"FindAllStringSubmatchIndex", lazy.FindAllStringSubmatchIndex(text, -1), eager.FindAllStringSubmatchIndex(text, -1)},
		{"FindAllSubmatch", lazy.FindAllSubmatch([]byte(text), -1), eager.FindAllSubmatch([]byte(text), -1)},
		{"FindAllSubmatchIndex", lazy.FindAllSubmatchIndex([]byte(text), -1), eager.FindAllSubmatchIndex([]byte(text), -1)},
		{"ReplaceAllString", lazy.ReplaceAllString(text, "$2"), "1 22 c=x"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
}
