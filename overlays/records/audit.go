package records

import (
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// fileProblem is a Problem in a named records file.
type fileProblem struct {
	File string // the records file's path
	Problem
}

// The README statements the reference's overlay README makes about its own
// size: "- `mlx/backend/rocm/**`: the ROCm backend (109 files)." and
// "- 15 MLX core files (...)".
var (
	dirCountRE  = lazyregexp.New("`([^`\\s]+)/\\*\\*`[^\\n]*?\\((\\d+) files?\\)")
	coreCountRE = lazyregexp.New(`\b(\d+) MLX core files?\b`)
	itemRefRE   = lazyregexp.New(`(?i)\b(?:items?|entry|entries)\s+(\d+)`)
)

// checkReadme checks what README.md says about the overlay's size: each
// "`DIR/**` ... (N files)" against the files under DIR, "N MLX core files"
// against the core files, and that every core file is listed (by file name
// or stem, as the README's brace lists write them). As in the reference, the
// statements are required: one for each backend directory and one for the
// core files.
func checkReadme(l *Layout) []fileProblem {
	file := filepath.Join(l.Root, readmeName)
	data, err := ReadRecord(file)
	if err != nil {
		return unreadable(file, err)
	}
	var out []fileProblem
	add := func(line int, msg, fix string) {
		out = append(out, fileProblem{File: file, Problem: Problem{Line: line, Message: msg, Fix: fix}})
	}
	text := string(data)
	stated := map[string]bool{}
	for _, m := range dirCountRE.FindAllStringSubmatchIndex(text, -1) {
		dir, said := text[m[2]:m[3]], text[m[4]:m[5]]
		stated[dir] = true
		n := 0
		for p := range l.Hashes {
			if strings.HasPrefix(p, dir+"/") {
				n++
			}
		}
		if want, _ := strconv.Atoi(said); want != n {
			add(lineAt(text, m[0]), fmt.Sprintf("says %s/** has %s files; the overlay has %d", dir, said, n),
				fmt.Sprintf("write (%d files), or restore the files the count expects", n))
		}
	}
	for _, d := range l.BackendDirs {
		if !stated[d] {
			n := 0
			for p := range l.Hashes {
				if strings.HasPrefix(p, d+"/") {
					n++
				}
			}
			add(0, fmt.Sprintf("has no statement of %s's file count", d),
				fmt.Sprintf("add a line such as \"- `%s/**`: the backend (%d files).\"", d, n))
		}
	}
	core := l.Core()
	m := coreCountRE.FindStringSubmatchIndex(text)
	if m == nil {
		add(0, "has no 'N MLX core files' statement", fmt.Sprintf("add \"%d MLX core files (...)\" listing each", len(core)))
	}
	if m != nil {
		if said, _ := strconv.Atoi(text[m[2]:m[3]]); said != len(core) {
			add(lineAt(text, m[0]), fmt.Sprintf("says %d MLX core files; the overlay has %d", said, len(core)),
				fmt.Sprintf("write %d MLX core files and list each, or restore the core files the README lists", len(core)))
		}
		for _, p := range core {
			name := path.Base(p)
			stem := strings.TrimSuffix(name, path.Ext(name))
			if !strings.Contains(text, name) && !strings.Contains(text, stem) {
				add(lineAt(text, m[0]), fmt.Sprintf("core file %s is not listed", p), "add it to the README's list of core files")
			}
		}
	}
	return out
}

// checkResidual checks CORE_RESIDUAL.diff against UPSTREAM, the core files
// and LOCAL_FIXES.md, offline: it was computed for UPSTREAM's commits and for
// the core files as they are now (their hashes), it hashes exactly the core
// files, has patches only for core files, and every patch carries a note
// that names a LOCAL_FIXES.md item (a note "item N" must name an item that
// exists). It does not recompute the residual: overlay:checkRecords does.
// An overlay without the file has no residual record to check.
func checkResidual(l *Layout, up Upstream, lf localFixes) []fileProblem {
	file := filepath.Join(l.Root, ResidualName)
	data, err := ReadRecord(file)
	if err != nil {
		return unreadable(file, err)
	}
	res, probs := ParseResidual(data)
	var out []fileProblem
	for _, p := range probs {
		out = append(out, fileProblem{File: file, Problem: p})
	}
	add := func(line int, msg, fix string) {
		out = append(out, fileProblem{File: file, Problem: Problem{Line: line, Message: msg, Fix: fix}})
	}
	const regen = "run overlay:checkRecords, review the residual it shows, then overlay:checkRecords -write"
	for _, h := range []struct {
		got Field
		key string
	}{{res.Pin, "retargeted_to_mlx_pin"}, {res.Fork, "commit"}, {res.Base, "fork_upstream_merge_base"}} {
		want, _ := up.Get(h.key)
		if !strings.EqualFold(h.got.Value, want.Value) {
			got := h.got.Value
			if got == "" {
				got = "(none)"
			}
			add(h.got.Line, fmt.Sprintf("was generated for %s %s, but UPSTREAM has %s %s", residualKey(h.key), got, h.key, want.Value), regen)
		}
	}
	core := map[string]bool{}
	for _, p := range l.Core() {
		core[p] = true
		h, ok := res.Hashes[p]
		switch {
		case !ok:
			add(0, fmt.Sprintf("core file %s is not hashed: the residual was generated before it was added", p), regen)
		case h.Value != l.Hashes[p]:
			add(h.Line, fmt.Sprintf("%s changed since the residual was generated", p), regen)
		}
	}
	for p, h := range res.Hashes {
		if !core[p] {
			add(h.Line, fmt.Sprintf("hashes %s, which is no longer a core file of the overlay", p), regen)
		}
	}
	items := map[int]bool{}
	for _, it := range lf.Items {
		items[it.Number] = true
	}
	patched := map[string]bool{}
	for _, p := range res.Patches {
		patched[p.Path] = true
		if !core[p.Path] {
			add(p.line, fmt.Sprintf("has a residual for %s, which is not a core file of the overlay", p.Path), regen)
		}
		note, ok := res.Notes[p.Path]
		switch {
		case !ok || note.Value == "" || strings.HasPrefix(note.Value, noteTODO):
			add(note.Line, fmt.Sprintf("%s has a residual but no note naming its LOCAL_FIXES.md item", p.Path),
				fmt.Sprintf("add `# note %s: item N (...)` naming the item that explains it", p.Path))
		default:
			for _, m := range itemRefRE.FindAllStringSubmatch(note.Value, -1) {
				if n, _ := strconv.Atoi(m[1]); !items[n] {
					add(note.Line, fmt.Sprintf("the note for %s points at item %s, which LOCAL_FIXES.md does not have", p.Path, m[1]),
						"point the note at the item that explains the residual")
				}
			}
		}
	}
	for p, n := range res.Notes {
		if !patched[p] {
			add(n.Line, fmt.Sprintf("has a note for %s, which has no residual", p), "remove the note, or "+regen)
		}
	}
	sortProblems(out)
	return out
}

// residualKey maps an UPSTREAM key to the residual header's name for it.
func residualKey(upstreamKey string) string {
	switch upstreamKey {
	case "retargeted_to_mlx_pin":
		return "pin"
	case "commit":
		return "fork"
	}
	return upstreamKey
}

// lineAt is the 1-based line of byte offset off in text.
func lineAt(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

// sortProblems orders problems by line, keeping the order of equal lines.
func sortProblems(ps []fileProblem) {
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].Line < ps[j-1].Line; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}
