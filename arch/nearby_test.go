package arch

import (
	"fmt"
	"slices"
	"testing"
)

// TestNearby: the processors that could stand in for a target come nearest
// first, of the same wave size only; a name outside the table has none.
func TestNearby(t *testing.T) {
	got := Nearby("gfx1151")
	if want := []string{"gfx1150", "gfx1152", "gfx1153", "gfx1101", "gfx1100", "gfx1102", "gfx1103"}; !slices.Equal(got[:len(want)], want) {
		t.Errorf("Nearby(gfx1151) starts %q, want %q", got[:len(want)], want)
	}
	if i, j := slices.Index(got, "gfx1031"), slices.Index(got, "gfx1010"); i < 0 || j < 0 || i > j {
		t.Errorf("Nearby(gfx1151) puts RDNA1's gfx1010 (%d) before RDNA2's gfx1031 (%d): %q", j, i, got)
	}
	for _, n := range got {
		if n == "gfx1151" || n == "gfx90a" || n == "gfx11-generic" {
			t.Errorf("Nearby(gfx1151) holds %s: %q", n, got)
		}
	}
	if got := Nearby("gfx90a:xnack-"); len(got) < 2 || got[0] != "gfx909" || got[1] != "gfx908" || slices.Contains(got, "gfx1030") {
		t.Errorf("Nearby(gfx90a:xnack-) = %q, want wave64 processors from gfx909, gfx908", got)
	}
	for _, none := range []string{"gfx1199", "gfx11-generic", "sm_90", ""} {
		if got := Nearby(none); got != nil {
			t.Errorf("Nearby(%q) = %q, want none", none, got)
		}
	}
}

// FuzzGfxVersion: every name the processor matcher accepts has a version
// that prints back to it; nothing else has one.
func FuzzGfxVersion(f *testing.F) {
	for _, s := range []string{"gfx90a", "gfx1151", "gfx803", "gfx90a:xnack-", "gfx11-generic", "gfx", "gfx0a0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseGfxVersion(s)
		if ok != gfxProcessorRe.MatchString(processor(s)) {
			t.Fatalf("parseGfxVersion(%q) ok = %v, the matcher says %v", s, ok, !ok)
		}
		if !ok {
			return
		}
		if back := fmt.Sprintf("gfx%d%x%x", v.major, v.minor, v.stepping); back != processor(s) {
			t.Errorf("parseGfxVersion(%q) = %+v, prints back as %s", s, v, back)
		}
	})
}
