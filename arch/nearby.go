package arch

import (
	"cmp"
	"slices"
	"strconv"
)

// gfxVersion is a processor name's version: gfx1151 is 11.5.1, gfx90a is
// 9.0.10 (major decimal, minor and stepping one hex digit each).
type gfxVersion struct{ major, minor, stepping int }

// parseGfxVersion reads a concrete processor's version (target features
// ignored); ok is false for a generic target or anything else.
func parseGfxVersion(target string) (v gfxVersion, ok bool) {
	p := processor(target)
	if !gfxProcessorRe.MatchString(p) {
		return v, false
	}
	digits := p[len("gfx"):]
	major, err := strconv.Atoi(digits[:len(digits)-2])
	if err != nil {
		return v, false
	}
	minor, _ := strconv.ParseInt(digits[len(digits)-2:len(digits)-1], 16, 0)
	stepping, _ := strconv.ParseInt(digits[len(digits)-1:], 16, 0)
	return gfxVersion{major, int(minor), int(stepping)}, true
}

// Nearby lists the table's processors that could stand in for target,
// nearest first: the same wave size (kernels that assume a warp width
// keep working), then the closest major version, minor version and
// stepping, ties in name order. A toolchain that cannot compile target
// names the first few it can (see backends.UnsupportedArchError). Empty
// for a name that is not a processor of the table.
func Nearby(target string) []string {
	want, ok := parseGfxVersion(target)
	self, inTable := Lookup(target)
	if !ok || !inTable {
		return nil
	}
	type cand struct {
		name string
		d    [3]int
	}
	var cs []cand
	for name, in := range known() {
		v, ok := parseGfxVersion(name)
		if !ok || name == self.name || in.WaveSize != self.WaveSize {
			continue
		}
		cs = append(cs, cand{name, [3]int{abs(v.major - want.major), abs(v.minor - want.minor), abs(v.stepping - want.stepping)}})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(slices.Compare(a.d[:], b.d[:]), cmp.Compare(a.name, b.name))
	})
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
