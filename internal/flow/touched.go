package flow

import (
	"fmt"

	"github.com/mlxbuild/mlxbuild/overlays"
)

// touchedShown bounds the lines said of touched files; the rest are
// counted.
const touchedShown = 5

// touchReasons say why Ninja redoes work that no input of mlxbuild's
// decision explains: sources touched without a change of content, whose
// touch Materialize passes on to the tree copy (overlays.Stats.TouchedFiles
// for a build that did it, done; overlays.PendingTouches for plan).
func touchReasons(files []string, done bool) []string {
	verb, tense := "will recompile", "will be"
	if done {
		verb, tense = "recompiled", "was"
	}
	var out []string
	for i, f := range files {
		if i == touchedShown {
			out = append(out, fmt.Sprintf("and %d more files touched the same way", len(files)-i))
			break
		}
		out = append(out, fmt.Sprintf("Ninja %s %s (or what includes it): it was touched, same content, so its tree copy %s newer than its object", verb, f, tense))
	}
	return out
}

// pendingTouches are the tree files a build would pass a touch on to (see
// overlays.PendingTouches): the overlay's (the composed one with layers)
// and, for a source folder used as is, the pristine source's.
func (p *Prepared) pendingTouches() []string {
	overlay := p.Config.Overlay(p.Backend)
	if p.layers() != nil {
		overlay = p.composedOverlay()
	}
	pristine := ""
	if dir := p.Config.Project.Source.Dir; dir != "" {
		pristine = p.Config.Project.Abs(dir)
	}
	return overlays.PendingTouches(p.Layout.Manifest, overlay, pristine)
}
