package configs

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzLowerHex: lowerHex answers as the expressions it replaced,
// `^[0-9a-f]{40}$` and `^[0-9a-f]{64}$`, for any text.
func FuzzLowerHex(f *testing.F) {
	for _, s := range []string{strings.Repeat("a", 40), strings.Repeat("0", 64), strings.Repeat("A", 40), strings.Repeat("f", 39) + "g", strings.Repeat("a", 40) + "\n", ""} {
		f.Add(s)
	}
	res := map[int]*regexp.Regexp{40: regexp.MustCompile(`^[0-9a-f]{40}$`), 64: regexp.MustCompile(`^[0-9a-f]{64}$`)}
	f.Fuzz(func(t *testing.T, s string) {
		for n, re := range res {
			if got, want := lowerHex(s, n), re.MatchString(s); got != want {
				t.Errorf("lowerHex(%q, %d) = %v; the expression says %v", s, n, got, want)
			}
		}
	})
}
