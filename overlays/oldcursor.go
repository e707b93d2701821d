package overlays

import (
	"sort"
	"strings"
)

// oldCursor walks one directory's part of the old manifest in step with the
// directory's sorted listing. The entries under a directory are contiguous
// in the manifest's order (comparePaths), and its names come in the same
// order as the entries they start, so each look-up is a binary search over
// what is left of the directory's range by the name alone: no path is built
// for a file that did not change, and no search of the whole manifest.
//
// A subdirectory's worker gets its own cursor over its part (dir), and
// this directory's cursor moves past it, so no worker ever reads entries
// that another one may be updating.
type oldCursor struct {
	es     []entry // the entries left in the directory's range
	base   int     // index of es[0] in the manifest
	prefix int     // length of the directory's path and its "/" (0 at the root)
}

// seek moves past every entry before name and reports whether the next one
// is name itself.
func (c *oldCursor) seek(name string) bool {
	// Most names are the next entry: an unchanged directory's names come
	// in its entries' order.
	if len(c.es) > 0 && c.es[0].path[c.prefix:] == name {
		return true
	}
	// sort.Search by index: slices.BinarySearchFunc would copy each probed
	// entry (120 bytes) into the comparison.
	i := sort.Search(len(c.es), func(i int) bool { return comparePaths(c.es[i].path[c.prefix:], name) >= 0 })
	c.es, c.base = c.es[i:], c.base+i
	return len(c.es) > 0 && c.es[0].path[c.prefix:] == name
}

// file is the manifest index of the file name, or -1, and moves past it.
func (c *oldCursor) file(name string) int {
	if !c.seek(name) {
		return -1
	}
	i := c.base
	c.es, c.base = c.es[1:], c.base+1
	return i
}

// dir moves past name and every entry under it, and returns the cursor
// over those entries for the subdirectory's worker. An old entry that is
// name itself (a file that became a directory) belongs to neither.
func (c *oldCursor) dir(name string) oldCursor {
	if c.seek(name) {
		c.es, c.base = c.es[1:], c.base+1
	}
	// What sorts right after name is what lies under it: '/' sorts first.
	p := name + "/"
	n := sort.Search(len(c.es), func(i int) bool { return !strings.HasPrefix(c.es[i].path[c.prefix:], p) })
	sub := oldCursor{es: c.es[:n:n], base: c.base, prefix: c.prefix + len(p)}
	c.es, c.base = c.es[n:], c.base+n
	return sub
}
