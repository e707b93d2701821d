package arch

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/mlxbuild/mlxbuild/internal/suggest"
)

// info is what mlxbuild knows about one gfx target.
type info struct {
	name     string // the processor, without target features
	Family   string // architecture family, e.g. "RDNA3.5" or "CDNA3"
	WaveSize int    // default wavefront size: 32 or 64
	generic  string // the generic target whose code runs on it, if any
}

// known lists the processors of LLVM's AMDGPUUsage ("Processors" table)
// with their family and default wavefront size. GCN and CDNA run wave64;
// RDNA (gfx10 and later) defaults to wave32, which is what kernels that
// assume a warp width care about. It is built on first use: a start of the
// binary that resolves no architecture (overlay:apply, a no-op) does not
// pay for it.
var known = sync.OnceValue(func() map[string]info {
	m := map[string]info{}
	add := func(family string, wave int, generic string, names ...string) {
		for _, n := range names {
			m[n] = info{name: n, Family: family, WaveSize: wave, generic: generic}
		}
	}
	add("GCN GFX6", 64, "", "gfx600", "gfx601", "gfx602")
	add("GCN GFX7", 64, "", "gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705")
	add("GCN GFX8", 64, "", "gfx801", "gfx802", "gfx803", "gfx805", "gfx810")
	add("GCN GFX9 (Vega)", 64, "gfx9-generic", "gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c")
	add("CDNA1", 64, "", "gfx908")
	add("CDNA2", 64, "", "gfx90a")
	add("CDNA3", 64, "gfx9-4-generic", "gfx940", "gfx941", "gfx942")
	add("CDNA4", 64, "gfx9-4-generic", "gfx950")
	add("RDNA1", 32, "gfx10-1-generic", "gfx1010", "gfx1011", "gfx1012", "gfx1013")
	add("RDNA2", 32, "gfx10-3-generic", "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036")
	add("RDNA3", 32, "gfx11-generic", "gfx1100", "gfx1101", "gfx1102", "gfx1103")
	add("RDNA3.5", 32, "gfx11-generic", "gfx1150", "gfx1151", "gfx1152", "gfx1153")
	add("RDNA4", 32, "gfx12-generic", "gfx1200", "gfx1201")
	add("GFX12.5", 32, "gfx12-5-generic", "gfx1250", "gfx1251")
	// Generic targets themselves: code built for one runs on every member.
	add("GCN GFX9 generic", 64, "", "gfx9-generic")
	add("CDNA3/4 generic", 64, "", "gfx9-4-generic")
	add("RDNA1 generic", 32, "", "gfx10-1-generic")
	add("RDNA2 generic", 32, "", "gfx10-3-generic")
	add("RDNA3/3.5 generic", 32, "", "gfx11-generic")
	add("RDNA4 generic", 32, "", "gfx12-generic")
	add("GFX12.5 generic", 32, "", "gfx12-5-generic")
	return m
})

// Lookup returns the table entry for a gfx target; target features such as
// ":xnack-" are ignored. The second result is false for names the table does
// not hold (a well-formed unknown name is a warning, not an error).
func Lookup(gfx string) (info, bool) {
	base, _, _ := strings.Cut(gfx, ":")
	info, ok := known()[base]
	return info, ok
}

// processor returns a target name without its target features.
func processor(target string) string {
	base, _, _ := strings.Cut(target, ":")
	return base
}

// runs reports whether code built for target runs on the processor gpu: the
// same processor, or a generic target that covers it. Target features are
// not compared (a target without them runs in either mode).
func runs(target, gpu string) bool {
	t, g := processor(target), processor(gpu)
	if t == g {
		return true
	}
	info, ok := known()[g]
	return ok && info.generic != "" && info.generic == t
}

// nearest returns up to n processors of the table closest to name by edit
// distance (ties in name order), for "did you mean" suggestions.
func nearest(name string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for k := range known() {
		cs = append(cs, cand{k, suggest.Distance(name, k)})
	}
	slices.SortFunc(cs, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.name, b.name))
	})
	var out []string
	for _, c := range cs {
		if len(out) == n || c.d > len(name)/2 {
			break
		}
		out = append(out, c.name)
	}
	return out
}
