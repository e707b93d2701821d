package overlays

import "strings"

// pathArena hands out strings cut from shared 64 KiB blocks: one
// allocation per block instead of one per path. A strings.Builder only ever
// appends, and within its capacity never moves what it holds, so every
// string cut from its String() stays valid and unchanged.
//
// The manifest's paths and the walk's listed names come from arenas: in a
// process that lives for milliseconds, every fresh size class is a fresh
// span and a page fault, and a string per getdents call (as the listings
// had) was a few hundred allocations of every size (about 80 of a no-op's
// 680 page faults on the real shape).
type pathArena struct{ b strings.Builder }

func (a *pathArena) string(p []byte) string {
	if a.b.Cap()-a.b.Len() < len(p) {
		a.b = strings.Builder{}
		a.b.Grow(max(64<<10, len(p)))
	}
	start := a.b.Len()
	a.b.Write(p)
	return a.b.String()[start:]
}
