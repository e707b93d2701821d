package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// Records checks an overlay's records offline, as the reference's
// `rocm_overlay.py records` does: UPSTREAM has every required key, the
// commits as full 40-hex SHAs, retargeted_to_mlx_pin equal to the project's
// pin; LOCAL_FIXES.md numbers its items 1..N each once (in any order); the
// README's file counts match the overlay; CORE_RESIDUAL.diff was generated
// for UPSTREAM's commits and the current core files, and notes every patch.
type Records struct {
	// Overlay is the overlay directory that holds UPSTREAM and LOCAL_FIXES.md.
	Overlay string
	// Pin is the project's MLX pin; the caller fills it from the project file.
	Pin string
	// RequireStatus makes an item without a `Status:` line a failure.
	RequireStatus bool
	// Upstream and LocalFixes are the records files' paths relative to
	// Overlay; default UPSTREAM and LOCAL_FIXES.md at its root.
	Upstream   string
	LocalFixes string
	// BackendDirs are the overlay's directories vendored whole from a fork
	// (mlx/backend/rocm); the other files are core files. Default: each
	// mlx/backend/<name> of the overlay that holds a CMakeLists.txt.
	BackendDirs []string
}

// path returns the records file rel (or its default name) under Overlay.
func (c Records) path(rel, def string) string {
	if rel == "" {
		rel = def
	}
	return filepath.Join(c.Overlay, filepath.FromSlash(rel))
}

// upstreamKeys are the keys UPSTREAM must hold, in the order they are reported.
var upstreamKeys = []string{"source", "branch", "commit", "fork_upstream_merge_base", "retargeted_to_mlx_pin", "license"}

// shaKeys are the keys whose value must be a full commit SHA.
var shaKeys = map[string]bool{"commit": true, "fork_upstream_merge_base": true, "retargeted_to_mlx_pin": true}

var fullSHA = lazyregexp.New(`^[0-9a-fA-F]{40}$`)

// Name is the check's name in reports.
func (Records) Name() string { return "records" }

// Run checks the records files.
func (c Records) Run(ctx context.Context) Result {
	var fs []Finding
	fs = append(fs, c.upstream()...)
	fs = append(fs, c.localFixes()...)
	return result(c.Name(), fs, "")
}

func (c Records) upstream() []Finding {
	file := c.path(c.Upstream, records.UpstreamName)
	data, err := os.ReadFile(file)
	if err != nil {
		return []Finding{{File: file, Message: fmt.Sprintf("cannot read UPSTREAM: %v", err),
			Fix: "create it with the lines " + strings.Join(upstreamKeys, ": ..., ") + ": ..."}}
	}
	u, probs := records.ParseUpstream(data)
	fs := problems(file, probs)
	for _, key := range upstreamKeys {
		f, ok := u.Get(key)
		switch {
		case !ok:
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("UPSTREAM has no %s line", key),
				Fix: fmt.Sprintf("add a line `%s: <value>`", key)})
		case f.Value == "":
			fs = append(fs, Finding{File: file, Line: f.Line, Message: fmt.Sprintf("%s is empty", key),
				Fix: fmt.Sprintf("give %s a value", key)})
		case shaKeys[key] && !fullSHA.MatchString(f.Value):
			fs = append(fs, Finding{File: file, Line: f.Line,
				Message: fmt.Sprintf("%s is %q, not a full 40-hex commit SHA (short SHAs become ambiguous)", key, f.Value),
				Fix:     fmt.Sprintf("write the full SHA: git rev-parse %s", f.Value)})
		case key == "retargeted_to_mlx_pin" && c.Pin != "" && !strings.EqualFold(f.Value, c.Pin):
			fs = append(fs, Finding{File: file, Line: f.Line,
				Message: fmt.Sprintf("retargeted_to_mlx_pin %s is not the project's pin %s", f.Value, c.Pin),
				Fix:     "retarget the overlay to the pin and update this line, or change the project's pin back"})
		}
	}
	return fs
}

func (c Records) localFixes() []Finding {
	file := c.path(c.LocalFixes, records.LocalFixesName)
	data, err := os.ReadFile(file)
	if err != nil {
		return []Finding{{File: file, Message: fmt.Sprintf("cannot read LOCAL_FIXES.md: %v", err),
			Fix: "create it, listing each local fix as `N. **Title.**`"}}
	}
	lf, probs := records.ParseLocalFixes(data)
	fs := problems(file, append(probs, lf.Numbering()...))
	// Paths an item names are not checked for existence: items name upstream
	// files, the engine's tests and docs, and backend files relative to the
	// backend directory, as the reference's records do. The other direction
	// (every file that differs from the fork is named) is overlay:checkRecords.
	reported := map[int]bool{} // lines the parser already has a problem on
	for _, p := range probs {
		reported[p.Line] = true
	}
	for _, it := range lf.Items {
		if c.RequireStatus && it.Status == records.StatusUnknown && !reported[it.Line] {
			fs = append(fs, Finding{File: file, Line: it.Line, Message: fmt.Sprintf("item %d says nowhere whether it applies to the fork or is retarget-only", it.Number),
				Fix: "end it with \"Applies to the fork.\" or \"Retarget-only.\", put it under a section about the fork or the retarget, or add a `Status:` line"})
		}
	}
	l, err := records.ReadLayout(c.Overlay, c.BackendDirs, nil)
	if err != nil {
		return append(fs, Finding{File: c.Overlay, Message: err.Error(), Fix: "fix the overlay directory"})
	}
	var up records.Upstream
	if data, err := os.ReadFile(c.path(c.Upstream, records.UpstreamName)); err == nil {
		up, _ = records.ParseUpstream(data)
	}
	for _, p := range append(records.CheckReadme(l), records.CheckResidual(l, up, lf)...) {
		fs = append(fs, Finding{File: p.File, Line: p.Line, Message: p.Message, Fix: p.Fix})
	}
	return fs
}

// problems turns a records parser's problems into findings on file.
func problems(file string, ps []records.Problem) []Finding {
	var fs []Finding
	for _, p := range ps {
		fs = append(fs, Finding{File: file, Line: p.Line, Message: p.Message, Fix: p.Fix})
	}
	return fs
}
