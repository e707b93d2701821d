package records

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Gate is the offline check of an overlay's records, the one verdict that
// verify's records check and overlay:checkRecords both give, as the
// reference's `rocm_overlay.py records` gives it: every record is present
// (README.md, UPSTREAM, LOCAL_FIXES.md, and CORE_RESIDUAL.diff when the
// overlay has core files); UPSTREAM's lines are `key: value`, it has source,
// branch, commit, fork_upstream_merge_base and retargeted_to_mlx_pin (a
// license line is optional), the commits are full lowercase SHAs and the pin
// is the project's; the README states the backend's and the core's file
// counts and they are right; LOCAL_FIXES.md numbers its items 1..N each once;
// CORE_RESIDUAL.diff was generated for UPSTREAM's commits and the core files
// as they are, with a note per patch.
type Gate struct {
	Overlay string
	// Pin is the project's MLX pin; "" leaves retargeted_to_mlx_pin
	// unchecked against it.
	Pin string
	// BackendDirs are the directories vendored whole from the fork; see
	// ReadLayout for the default.
	BackendDirs []string
	// Upstream and LocalFixes are the records' paths relative to Overlay;
	// "" is UPSTREAM and LOCAL_FIXES.md at its root.
	Upstream, LocalFixes string
	// RequireStatus makes an item that says nowhere whether it applies to
	// the fork or is retarget-only a finding.
	RequireStatus bool
}

// upstreamKeys are the keys UPSTREAM must hold, in the order they are
// reported. license is not one: the reference's records do not require it.
var upstreamKeys = []string{"source", "branch", "commit", "fork_upstream_merge_base", "retargeted_to_mlx_pin"}

// shaKeys are the keys whose value must be a full commit SHA.
var shaKeys = map[string]bool{"commit": true, "fork_upstream_merge_base": true, "retargeted_to_mlx_pin": true}

// lowerSHA is a full commit id as git prints it: uppercase is refused, as
// the reference refuses it, so one commit has one spelling in the records.
var lowerSHA = lazyregexp.New(`^[0-9a-f]{40}$`)

func (g Gate) path(rel, def string) string {
	if rel == "" {
		rel = def
	}
	return filepath.Join(g.Overlay, filepath.FromSlash(rel))
}

// Check runs the gate and returns every disagreement, each in the file to
// fix, and the overlay's layout (nil when the overlay cannot be read, which
// is then a finding).
func (g Gate) Check() ([]fileProblem, *Layout) {
	var out []fileProblem
	add := func(file string, line int, msg, fix string) {
		out = append(out, fileProblem{File: file, Problem: Problem{Line: line, Message: msg, Fix: fix}})
	}
	read := func(file, name, fix string) ([]byte, bool) {
		data, err := ReadRecord(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			add(file, 0, name+": missing", fix)
			return nil, false
		case fail.KindOf(err) == fail.Config:
			add(file, 0, err.Error(), "")
			return nil, false
		case err != nil:
			add(file, 0, fmt.Sprintf("cannot read %s: %v", name, err), "check its permissions")
			return nil, false
		}
		return data, true
	}

	upFile := g.path(g.Upstream, UpstreamName)
	var up Upstream
	if data, ok := read(upFile, UpstreamName, "create it with the lines "+strings.Join(upstreamKeys, ": ..., ")+": ..."); ok {
		var probs []Problem
		up, probs = ParseUpstream(data)
		for _, p := range probs {
			add(upFile, p.Line, p.Message, p.Fix)
		}
		for _, p := range g.upstream(up) {
			add(upFile, p.Line, p.Message, p.Fix)
		}
	}

	fixesFile := g.path(g.LocalFixes, LocalFixesName)
	var lf localFixes
	if data, ok := read(fixesFile, LocalFixesName, "create it, listing each local fix as `N. **Title.**`"); ok {
		var probs []Problem
		lf, probs = ParseLocalFixes(data)
		for _, p := range append(probs, lf.Numbering()...) {
			add(fixesFile, p.Line, p.Message, p.Fix)
		}
		if len(lf.Items) == 0 && len(probs) == 0 {
			add(fixesFile, 0, "no numbered entries", "list each local fix as `N. **Title.**`, numbered from 1")
		}
		out = append(out, g.status(fixesFile, lf, probs)...)
	}

	// Records kept elsewhere (local_fixes: in a sub-folder) are records too.
	recs := append([]string(nil), allNames...)
	for _, rel := range []string{g.Upstream, g.LocalFixes} {
		if rel != "" {
			recs = append(recs, filepath.ToSlash(filepath.Clean(rel)))
		}
	}
	l, err := ReadLayout(g.Overlay, g.BackendDirs, recs)
	if err != nil {
		add(g.Overlay, 0, err.Error(), "fix the overlay directory")
		return out, nil
	}
	readme := filepath.Join(g.Overlay, readmeName)
	if _, err := os.Stat(readme); errors.Is(err, fs.ErrNotExist) {
		add(readme, 0, readmeName+": missing", "restore the overlay's README, which states its backend and core file counts")
	} else {
		out = append(out, checkReadme(l)...)
	}
	resFile := filepath.Join(g.Overlay, ResidualName)
	if _, err := os.Stat(resFile); errors.Is(err, fs.ErrNotExist) && len(l.Core()) > 0 {
		add(resFile, 0, ResidualName+": missing",
			fmt.Sprintf("the overlay has %d core files; run overlay:checkRecords -write to record what they carry beyond the pin and the fork", len(l.Core())))
	}
	out = append(out, checkResidual(l, up, lf)...)
	return out, l
}

// upstream checks UPSTREAM's keys and values.
func (g Gate) upstream(u Upstream) []Problem {
	var out []Problem
	for _, key := range upstreamKeys {
		f, ok := u.Get(key)
		switch {
		case !ok:
			out = append(out, Problem{Message: fmt.Sprintf("UPSTREAM has no %s line", key), Fix: fmt.Sprintf("add a line `%s: <value>`", key)})
		case f.Value == "":
			out = append(out, Problem{Line: f.Line, Message: fmt.Sprintf("%s is empty", key), Fix: fmt.Sprintf("give %s a value", key)})
		case shaKeys[key] && !lowerSHA.MatchString(f.Value):
			out = append(out, Problem{Line: f.Line,
				Message: fmt.Sprintf("%s is %q, not a full 40-character lowercase commit SHA (short SHAs become ambiguous)", key, f.Value),
				Fix:     fmt.Sprintf("write the full SHA as git prints it: git rev-parse %s", f.Value)})
		case key == "retargeted_to_mlx_pin" && g.Pin != "" && f.Value != g.Pin:
			out = append(out, Problem{Line: f.Line,
				Message: fmt.Sprintf("retargeted_to_mlx_pin %s is not the project's pin %s", f.Value, g.Pin),
				Fix:     "retarget the overlay to the pin (overlay:retarget) and update this line, or change the project's pin back"})
		}
	}
	return out
}

// status flags items without a status when the gate asks for one.
func (g Gate) status(file string, lf localFixes, probs []Problem) []fileProblem {
	if !g.RequireStatus {
		return nil
	}
	reported := map[int]bool{} // lines the parser already has a problem on
	for _, p := range probs {
		reported[p.Line] = true
	}
	var out []fileProblem
	for _, it := range lf.Items {
		if it.Status == StatusUnknown && !reported[it.line] {
			out = append(out, fileProblem{File: file, Problem: Problem{Line: it.line,
				Message: fmt.Sprintf("item %d says nowhere whether it applies to the fork or is retarget-only", it.Number),
				Fix:     "end it with \"Applies to the fork.\" or \"Retarget-only.\", put it under a section about the fork or the retarget, or add a `Status:` line"}})
		}
	}
	return out
}
