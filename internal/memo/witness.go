package memo

import (
	"maps"
	"path/filepath"
	"slices"
)

// Witness records every path and environment value a piece of work looks
// at, so its result can be kept against exactly those: a file's identity
// (a rewrite, an in-place edit and a replacement all change it), both ends
// of a link, a path that was absent (its creation changes it), a directory
// (an entry added or removed changes it, so it must stay that directory),
// and each variable's value. A nil *Witness records nothing.
type Witness struct {
	files map[string]ID
	env   map[string]string
}

// NewWitness is an empty witness.
func NewWitness() *Witness {
	return &Witness{files: map[string]ID{}, env: map[string]string{}}
}

// File records p and, when p (or a directory above it) is a symlink, the
// file it resolves to: both ends of the link.
func (w *Witness) File(p string) {
	if w == nil || p == "" {
		return
	}
	p = filepath.Clean(p)
	if _, ok := w.files[p]; ok {
		return
	}
	id := Of(p)
	w.files[p] = id
	if id.Absent {
		return
	}
	if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
		if _, ok := w.files[real]; !ok {
			w.files[real] = Of(real)
		}
	}
}

// Env records that variable k read v.
func (w *Witness) Env(k, v string) {
	if w != nil {
		w.env[k] = v
	}
}

// Entry is the entry that keeps values for keys while what w recorded
// holds: variables in name order, files in path order (so a directory
// comes before what is in it; see KeysUnchanged).
func (w *Witness) Entry(keys, values [][2]string) Entry {
	e := Entry{Keys: keys, Values: values}
	if w == nil {
		return e
	}
	for _, k := range slices.Sorted(maps.Keys(w.env)) {
		e.Env = append(e.Env, [2]string{k, w.env[k]})
	}
	for _, p := range slices.Sorted(maps.Keys(w.files)) {
		e.Files = append(e.Files, w.files[p].Key())
	}
	return e
}
