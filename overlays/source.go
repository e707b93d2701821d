package overlays

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Sources are the directories a tree's files come from: the pristine
// checkout and the overlay Materialize took. With layers that overlay is
// their composition under the cache, which is mlxbuild's copy, not the
// user's; Layers (what Compose returned) names the layer file behind each
// of its files.
type Sources struct {
	Pristine, Overlay string
	Layers            map[string]layerSource // tree path -> layer file; nil without layers
}

// UserFile is the file of the user's behind a tree file: the one to edit.
type UserFile struct {
	Path   string
	Origin origin
	layer  int // the 1-based index of the layer that provides it; 0 without layers
}

// Label says where the file is from: "pristine", "overlay", "overlay layer 2".
func (f UserFile) Label() string {
	if f.Origin == FromOverlay && f.layer > 0 {
		return fmt.Sprintf("overlay layer %d", f.layer)
	}
	return f.Origin.String()
}

// SourceOf names the user's file behind a file of the tree, from the
// manifest the last Materialize wrote: the overlay's file (with layers, the
// top-most layer's that provides it), or the pristine source's. treeFile
// is absolute or relative to tree; ok is false for a file the tree does not
// hold from either side (a generated one). Errors point there, since an
// edit of the tree copy (or of the composed overlay) is undone by the next
// run.
func (m *Manifest) SourceOf(tree, treeFile string, src Sources) (UserFile, bool) {
	rel := treeFile
	if filepath.IsAbs(treeFile) {
		r, err := filepath.Rel(tree, treeFile)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return UserFile{}, false
		}
		rel = r
	}
	i := m.find(filepath.ToSlash(rel))
	if i < 0 {
		return UserFile{}, false
	}
	e := &m.entries[i]
	switch {
	case e.origin != FromOverlay:
		return UserFile{Path: filepath.Join(src.Pristine, filepath.FromSlash(e.path)), Origin: e.origin}, true
	case src.Layers != nil:
		// The composed overlay is a cache directory: only a layer file
		// is the user's. One no layer provides is a manifest older than
		// the layers, which names nothing the user can edit.
		l, ok := src.Layers[e.path]
		if !ok {
			return UserFile{}, false
		}
		return UserFile{Path: l.path, Origin: FromOverlay, layer: l.layer + 1}, true
	}
	return UserFile{Path: filepath.Join(src.Overlay, filepath.FromSlash(e.path)), Origin: FromOverlay}, true
}
