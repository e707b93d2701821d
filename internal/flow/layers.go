package flow

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// layers converts the backend's declared layers; nil when it declares none.
func (p *Prepared) layers() []overlays.Layer {
	var out []overlays.Layer
	for _, l := range p.Config.Layers(p.Backend) {
		out = append(out, overlays.Layer{Dir: l.Dir, Files: l.Files, To: l.To, Optional: l.Optional})
	}
	return out
}

// composedOverlay is where a backend's layers are composed into one overlay.
func (p *Prepared) composedOverlay() string { return p.Layout.Composed }

// treeOverlay is the overlay Materialize lays over the pristine source: the
// backend's overlay, or the composition of its layers (composed now). The
// caller holds the backend's lock.
func (p *Prepared) treeOverlay() (string, error) {
	src, err := p.composeOverlay()
	return src.Overlay, err
}

// composeOverlay is treeOverlay as Sources: with layers, Layers holds the
// layer file behind each file of the composition, so that errors can name
// the file the user owns rather than the composed copy in the cache.
// Pristine is left to the caller.
func (p *Prepared) composeOverlay() (overlays.Sources, error) {
	layers := p.layers()
	if layers == nil {
		return overlays.Sources{Overlay: p.Config.Overlay(p.Backend)}, nil
	}
	files, err := overlays.Compose(layers, p.Spec.Records, p.composedOverlay())
	if err != nil {
		return overlays.Sources{}, err
	}
	return overlays.Sources{Overlay: p.composedOverlay(), Layers: files}, nil
}

// overlayHashes hashes what the overlay puts in the tree, for the stamp,
// writing nothing; nil when the backend has no overlay. A build decides
// twice (before materializing, then with the dependencies known): the
// overlay is read and hashed once per run. An edit between the two reads
// is then seen by the next run, whose hashes differ from the stamp's.
func (p *Prepared) overlayHashes() (map[string]string, error) {
	if !p.overlaySums.done {
		p.overlaySums.files, p.overlaySums.err = p.hashOverlay()
		p.overlaySums.done = true
	}
	return p.overlaySums.files, p.overlaySums.err
}

func (p *Prepared) hashOverlay() (map[string]string, error) {
	if layers := p.layers(); layers != nil {
		return overlays.LayerHashes(layers, p.Spec.Records)
	}
	if ov := p.Config.Overlay(p.Backend); ov != "" {
		return overlays.OverlayFiles(ov, p.Spec.Records)
	}
	return nil, nil
}

// overlaySources are the directories the backend's tree takes files from,
// for Cargo's rerun-if-changed and the other backends' isolation check.
func (p *Prepared) overlaySources() []string { return overlaySources(p.Config, p.Backend) }

func overlaySources(cfg *configs.Config, backend string) []string {
	if layers := cfg.Layers(backend); layers != nil {
		var dirs []string
		seen := map[string]bool{}
		for _, l := range layers {
			if !seen[l.Dir] {
				seen[l.Dir] = true
				dirs = append(dirs, l.Dir)
			}
		}
		return dirs
	}
	if ov := cfg.Overlay(backend); ov != "" {
		return []string{ov}
	}
	return nil
}

// layerDetail says, for plan, what a layer takes and where it puts it.
func layerDetail(l overlays.Layer) string {
	var parts []string
	if len(l.Files) > 0 {
		parts = append(parts, strings.Join(l.Files, " "))
	}
	if l.To != "" {
		parts = append(parts, "-> "+l.To+"/")
	}
	if l.Optional {
		parts = append(parts, "(optional)")
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, " ")
}
