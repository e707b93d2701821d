package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Stamp records every input of a backend's last successful build. Input
// names are "spec", "pin", "overlay:<path>" (one per overlay file, the value
// its content hash), "architectures", "toolchain.root", "toolchain.version",
// "env:<NAME>" and "mlxbuild.version"; callers may add more.
type Stamp struct {
	Inputs map[string]string `json:"inputs"`
}

// overlayPrefix starts the name of each per-file overlay input.
const overlayPrefix = "overlay:"

// SetOverlay replaces the stamp's overlay inputs with files (path -> content
// hash), as returned by overlays.OverlayFiles.
func (s *Stamp) SetOverlay(files map[string]string) {
	if s.Inputs == nil {
		s.Inputs = make(map[string]string, len(files))
	}
	for k := range s.Inputs {
		if strings.HasPrefix(k, overlayPrefix) {
			delete(s.Inputs, k)
		}
	}
	for p, h := range files {
		s.Inputs[overlayPrefix+p] = h
	}
}

// ReadStamp reads the stamp at path. A missing file is not an error: it
// returns nil, nil (nothing was built yet).
func ReadStamp(path string) (*Stamp, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: reading stamp %s: %w; check its permissions", path, err)
	}
	var s Stamp
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("cache: stamp %s is not valid JSON (%v); delete it or run `mage cache:clean` to rebuild from scratch", path, err)
	}
	if s.Inputs == nil {
		s.Inputs = map[string]string{}
	}
	return &s, nil
}

// WriteStamp replaces the stamp at path atomically (temporary file, fsync,
// rename): it is written last, after a successful build, so a crash before
// it leaves the old stamp and the next run redoes the work.
func WriteStamp(path string, s *Stamp) error {
	if s == nil {
		return fmt.Errorf("cache: WriteStamp %s: nil stamp", path)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("cache: encoding stamp %s: %w", path, err)
	}
	data = append(data, '\n')
	// A no-op build has the same inputs as the last one: leave the file
	// alone rather than create, sync and rename an identical one.
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return atomicWrite("stamp", path, data)
}

// change is one input that differs between two stamps. Old is empty for an
// added input, New for a removed one.
type change struct {
	input, old, new string
}

// overlaySummary is the Input of a change that stands for many overlay files.
const overlaySummary = "overlay"

// String says what changed in the words `plan` prints, for example
// "overlay: mlx/backend/rocm/qmm.hip changed" or
// "architectures: gfx1100 -> gfx1100;gfx1151".
func (c change) String() string {
	switch {
	case c.input == "":
		return c.new
	case c.input == overlaySummary:
		return "overlay: " + c.new
	case strings.HasPrefix(c.input, overlayPrefix):
		p := strings.TrimPrefix(c.input, overlayPrefix)
		switch {
		case c.old == "":
			return "overlay: " + p + " added"
		case c.new == "":
			return "overlay: " + p + " removed"
		}
		return "overlay: " + p + " changed"
	}
	return c.input + ": " + show(c.old) + " -> " + show(c.new)
}

// show makes a stamp value readable in one line: empty is "(none)", and
// content hashes are shortened the way git shortens commits.
func show(v string) string {
	if v == "" {
		return "(none)"
	}
	if len(v) > 16 && isHex(v) {
		return v[:12]
	}
	return v
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// maxOverlayListed is how many overlay files diff names one by one before it
// summarises them in a single change.
const maxOverlayListed = 5

// diff lists the inputs that differ from old to new, sorted by name, with
// overlay files summarised in one change when more than a few changed. A nil
// old stamp (never built) gives a single change saying so; equal stamps give
// nil.
func diff(old, new *Stamp) []change {
	if new == nil {
		new = &Stamp{}
	}
	if old == nil {
		return []change{{new: "no previous successful build"}}
	}
	keys := make([]string, 0, len(old.Inputs)+len(new.Inputs))
	for k := range old.Inputs {
		keys = append(keys, k)
	}
	for k := range new.Inputs {
		if _, ok := old.Inputs[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out, overlay []change
	for _, k := range keys {
		o, n := old.Inputs[k], new.Inputs[k]
		if o == n {
			continue
		}
		c := change{input: k, old: o, new: n}
		if strings.HasPrefix(k, overlayPrefix) {
			overlay = append(overlay, c)
			continue
		}
		out = append(out, c)
	}
	if len(overlay) > maxOverlayListed {
		overlay = []change{summarise(overlay)}
	}
	// Overlay changes go where "overlay" sorts among the other inputs.
	i, _ := slices.BinarySearchFunc(out, overlaySummary, func(c change, t string) int { return strings.Compare(c.input, t) })
	return slices.Insert(out, i, overlay...)
}

// summarise folds many overlay changes into one, naming the first few.
func summarise(cs []change) change {
	var added, removed, changed int
	names := make([]string, 0, 3)
	for _, c := range cs {
		switch {
		case c.old == "":
			added++
		case c.new == "":
			removed++
		default:
			changed++
		}
		if len(names) < 3 {
			names = append(names, strings.TrimPrefix(c.input, overlayPrefix))
		}
	}
	var parts []string
	for _, p := range []struct {
		n    int
		verb string
	}{{changed, "changed"}, {added, "added"}, {removed, "removed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.verb))
		}
	}
	msg := fmt.Sprintf("%d files (%s): %s and %d more", len(cs), strings.Join(parts, ", "), strings.Join(names, ", "), len(cs)-len(names))
	return change{input: overlaySummary, new: msg}
}
