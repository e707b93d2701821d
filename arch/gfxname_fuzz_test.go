package arch

import (
	"regexp"
	"testing"
)

// The expressions isGfxProcessor and isGfxGeneric write out, kept here as
// their definition.
var (
	gfxProcessorRe = regexp.MustCompile(`^gfx[1-9][0-9]?[0-9a-f][0-9a-f]$`)
	gfxGenericRe   = regexp.MustCompile(`^gfx[1-9][0-9]?(-[0-9])?-generic$`)
)

// FuzzGfxNames holds the hand-written matchers equal to the expressions
// on every input.
func FuzzGfxNames(f *testing.F) {
	for _, s := range []string{"gfx90a", "gfx1030", "gfx1100", "gfx803", "gfx0a0", "gfx10300", "gfx90A", "gfx9-generic", "gfx10-3-generic", "gfx11-generic", "gfx-generic", "gfx9-10-generic", "gfx9-generic\n", "gfx90a\n", "xgfx90a", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isGfxProcessor(s), gfxProcessorRe.MatchString(s); got != want {
			t.Errorf("isGfxProcessor(%q) = %v, the expression says %v", s, got, want)
		}
		if got, want := isGfxGeneric(s), gfxGenericRe.MatchString(s); got != want {
			t.Errorf("isGfxGeneric(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
