package namematch

import (
	"regexp"
	"testing"
)

// cases are the words configs uses, each with the expression it stands for.
var cases = []struct {
	w  Word
	re *regexp.Regexp
}{
	{New("A-Za-z_", "A-Za-z0-9_"), regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)},
	{New("A-Za-z0-9_+", "A-Za-z0-9_.+-"), regexp.MustCompile(`^[A-Za-z0-9_+][A-Za-z0-9_.+-]*$`)},
	{New("A-Za-z0-9_", "A-Za-z0-9_.+-"), regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)},
	{Exactly("0-9a-f", 40), regexp.MustCompile(`^[0-9a-f]{40}$`)},
	{Exactly("0-9a-f", 64), regexp.MustCompile(`^[0-9a-f]{64}$`)},
}

// FuzzWord holds every word equal to its expression on every input.
func FuzzWord(f *testing.F) {
	for _, s := range []string{"", "CMAKE_BUILD_TYPE", "_x", "9x", "lib-x", "-x", "+x", "stdc++", "a.b", "a\n", "é", "81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1", "81BA1C6A52D8B1E49E0E0A0DE8C1A3C2E4C2B0A1", "83c2a030fabb644eb8d75797c6de01ad6c8d429e1e077525bfaf1e0fe715be9d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range cases {
			if got, want := c.w.MatchString(s), c.re.MatchString(s); got != want {
				t.Errorf("%s on %q: %v, the expression says %v", c.re, s, got, want)
			}
		}
	})
}
