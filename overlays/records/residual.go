package records

import (
	"fmt"
	"sort"
	"strings"
)

// Residual is a parsed CORE_RESIDUAL.diff: what the overlay's core files
// carry beyond "MLX pin + the fork's own change to the file", as the
// reference's overlay tool writes it. A header of `#` lines comes first:
//
//	# pin: <MLX commit the residual was computed against>
//	# fork: <fork commit>
//	# fork_upstream_merge_base: <the fork's merge base with MLX>
//	# overlay-sha256: <hex> <core file>      (one per core file)
//	# note <core file>: <the LOCAL_FIXES.md item behind its residual>
//
// other `#` lines being prose, then one unified diff per core file that has
// a residual (`--- a/<path>`, `+++ b/<path>`, hunks).
type Residual struct {
	Pin, Fork, Base Field // Key is the header key; Line 0 when absent
	Hashes          map[string]Field
	Notes           map[string]Field
	Patches         []FilePatch
}

// FilePatch is the unified diff of one core file.
type FilePatch struct {
	Path string
	line int    // line of its `--- ` header
	Text string // the patch, headers included, with its line ends
}

// noteTODO starts the note a freshly written residual gets for a file whose
// item nobody has named yet; a note that starts with it does not count.
const noteTODO = "TODO"

// ParseResidual reads CORE_RESIDUAL.diff. Like the other parsers it never
// fails: it returns what it understood and a Problem per line it could not.
func ParseResidual(data []byte) (Residual, []Problem) {
	r := Residual{Hashes: map[string]Field{}, Notes: map[string]Field{}}
	var probs []Problem
	lines := splitKeep(data)
	i := 0
	for ; i < len(lines); i++ {
		n := i + 1
		line := strings.TrimRight(lines[i], "\r\n")
		if strings.HasPrefix(line, "--- ") {
			break
		}
		if !strings.HasPrefix(line, "#") {
			if strings.TrimSpace(line) != "" {
				probs = append(probs, Problem{Line: n,
					Message: fmt.Sprintf("%q in the header is neither a `#` line nor the start of a patch", clip(line)),
					Fix:     "start header lines with #, and each patch with `--- a/<path>`"})
			}
			continue
		}
		body := strings.TrimSpace(line[1:])
		key, value, _ := strings.Cut(body, ":")
		switch key = strings.TrimSpace(key); {
		case key == "pin" || key == "fork" || key == "fork_upstream_merge_base":
			f := Field{Key: key, Value: strings.TrimSpace(value), Line: n}
			dst := map[string]*Field{"pin": &r.Pin, "fork": &r.Fork, "fork_upstream_merge_base": &r.Base}[key]
			if dst.Line != 0 {
				probs = append(probs, Problem{Line: n, Message: fmt.Sprintf("%s given again (first at line %d)", key, dst.Line), Fix: "keep one line per key"})
				continue
			}
			*dst = f
		case key == "overlay-sha256":
			parts := strings.Fields(value)
			if len(parts) != 2 || !isHex64(parts[0]) {
				probs = append(probs, Problem{Line: n, Message: fmt.Sprintf("malformed hash line %q", clip(line)),
					Fix: "write `# overlay-sha256: <64 hex> <core file>`"})
				continue
			}
			addOnce(r.Hashes, parts[1], Field{Key: parts[1], Value: parts[0], Line: n}, "hash", &probs)
		case strings.HasPrefix(body, "note "):
			path, note, ok := strings.Cut(strings.TrimPrefix(body, "note "), ":")
			path = strings.TrimSpace(path)
			if !ok || path == "" || strings.ContainsAny(path, " \t") {
				probs = append(probs, Problem{Line: n, Message: fmt.Sprintf("malformed note line %q", clip(line)),
					Fix: "write `# note <core file>: <the LOCAL_FIXES.md item behind it>`"})
				continue
			}
			addOnce(r.Notes, path, Field{Key: path, Value: strings.TrimSpace(note), Line: n}, "note", &probs)
		}
	}
	// The patches: each starts at a `--- ` line followed by `+++ b/<path>`.
	var cur *FilePatch
	var text strings.Builder
	flush := func() {
		if cur != nil {
			cur.Text = text.String()
			r.Patches = append(r.Patches, *cur)
			cur = nil
		}
		text.Reset()
	}
	for ; i < len(lines); i++ {
		n := i + 1
		line := strings.TrimRight(lines[i], "\r\n")
		if strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			flush()
			next := strings.TrimRight(lines[i+1], "\r\n")
			path := strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(next, "+++ ")), "b/")
			if f := strings.Fields(path); len(f) > 0 {
				path = f[0] // drop a timestamp after the name
			}
			cur = &FilePatch{Path: path, line: n}
			for _, p := range r.Patches {
				if p.Path == path {
					probs = append(probs, Problem{Line: n, Message: fmt.Sprintf("a second patch for %s (first at line %d)", path, p.line),
						Fix: "keep one patch per core file; regenerate the file with overlay:checkRecords -write"})
				}
			}
		}
		if cur == nil {
			if strings.TrimSpace(line) != "" {
				probs = append(probs, Problem{Line: n, Message: fmt.Sprintf("%q is outside any patch", clip(line)),
					Fix: "regenerate the file with overlay:checkRecords -write"})
			}
			continue
		}
		text.WriteString(lines[i])
	}
	flush()
	return r, probs
}

func addOnce(m map[string]Field, key string, f Field, what string, probs *[]Problem) {
	if first, dup := m[key]; dup {
		*probs = append(*probs, Problem{Line: f.Line, Message: fmt.Sprintf("a second %s for %s (first at line %d)", what, key, first.Line),
			Fix: fmt.Sprintf("keep one %s line per core file", what)})
		return
	}
	m[key] = f
}

// Patch returns the patch of path, if the residual has one.
func (r Residual) Patch(path string) (FilePatch, bool) {
	for _, p := range r.Patches {
		if p.Path == path {
			return p, true
		}
	}
	return FilePatch{}, false
}

// residualPreamble opens a residual mlxbuild writes; it says what the file
// is and how to refresh it, in mlxbuild's terms.
const residualPreamble = `# CORE_RESIDUAL.diff: what this overlay's MLX core files carry beyond the
# MLX pin plus the fork's own change to each file ("pin + fork delta", a
# three-way merge of the fork commit onto the pin, based on the fork's merge
# base with MLX). Written by overlay:checkRecords -write, which keeps the
# notes; do not edit the patches by hand. Every patch needs a note naming the
# LOCAL_FIXES.md item that explains it.
#
`

// Render writes the residual in the format ParseResidual reads: the
// preamble, the commits, a hash per core file, a note per patch (TODO where
// none is known), a blank line, the patches.
func (r Residual) Render() []byte {
	var b strings.Builder
	b.WriteString(residualPreamble)
	fmt.Fprintf(&b, "# pin: %s\n# fork: %s\n# fork_upstream_merge_base: %s\n", r.Pin.Value, r.Fork.Value, r.Base.Value)
	paths := make([]string, 0, len(r.Hashes))
	for p := range r.Hashes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "# overlay-sha256: %s %s\n", r.Hashes[p].Value, p)
	}
	for _, p := range r.Patches {
		note := noteTODO + ": name the LOCAL_FIXES.md item this residual implements"
		if n, ok := r.Notes[p.Path]; ok && n.Value != "" {
			note = n.Value
		}
		fmt.Fprintf(&b, "# note %s: %s\n", p.Path, note)
	}
	b.WriteString("\n")
	for _, p := range r.Patches {
		b.WriteString(p.Text)
		if !strings.HasSuffix(p.Text, "\n") {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// splitKeep splits data into lines that keep their terminators.
func splitKeep(data []byte) []string {
	var out []string
	start := 0
	for i, c := range data {
		if c == '\n' {
			out = append(out, string(data[start:i+1]))
			start = i + 1
		}
	}
	if start < len(data) {
		out = append(out, string(data[start:]))
	}
	return out
}
