package overlays

import (
	"path/filepath"
	"strings"
)

// SourceOf names the user's file behind a file of the tree, from the
// manifest the last Materialize wrote: the overlay's copy, or the pristine
// source's. treeFile is absolute or relative to tree; ok is false for a
// file the tree does not hold from either side (a generated one). Errors
// point there, since an edit of the tree copy is undone by the next run.
func (m *Manifest) SourceOf(tree, treeFile, pristine, overlay string) (file string, origin origin, ok bool) {
	rel := treeFile
	if filepath.IsAbs(treeFile) {
		r, err := filepath.Rel(tree, treeFile)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", 0, false
		}
		rel = r
	}
	i := m.find(filepath.ToSlash(rel))
	if i < 0 {
		return "", 0, false
	}
	e := &m.entries[i]
	base := pristine
	if e.origin == FromOverlay {
		base = overlay
	}
	return filepath.Join(base, filepath.FromSlash(e.path)), e.origin, true
}
