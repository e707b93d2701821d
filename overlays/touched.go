package overlays

import (
	"crypto/sha256"
	"os"
	"path/filepath"
)

// PendingTouches lists the tree files (slash paths, in the manifest's
// order) whose source was touched without a change of content since the
// Materialize that wrote the manifest at manifestPath: the next
// Materialize passes each touch on to the tree copy (Stats.TouchedFiles),
// so Ninja rebuilds what depends on it although no input of mlxbuild's
// decision changed. It applies Materialize's own rule (the source's mtime
// moved, is newer than the tree copy's, and its content hashes the same)
// and writes nothing: plan says what a build would make Ninja redo. A
// source folder given as "" is not looked at (pristine sources of a git
// pin are mlxbuild's own checkout, which nobody touches).
func PendingTouches(manifestPath, overlay, pristine string) []string {
	m := readManifest(manifestPath)
	var out []string
	for i := range m.entries {
		e := &m.entries[i]
		if e.kind == kindLink {
			continue
		}
		dir := pristine
		if e.origin == FromOverlay {
			dir = overlay
		}
		if dir == "" {
			continue
		}
		src := filepath.Join(dir, filepath.FromSlash(e.path))
		st, err := os.Stat(src)
		if err != nil {
			continue
		}
		if mt := st.ModTime().UnixNano(); mt == e.srcMTime || mt <= e.mTime {
			continue
		}
		data, err := os.ReadFile(src)
		if err == nil && sha256.Sum256(data) == e.hash {
			out = append(out, e.path)
		}
	}
	return out
}
