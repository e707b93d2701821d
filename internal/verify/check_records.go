package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// Records checks an overlay's records (check 2): UPSTREAM has every
// required key, the commits as full 40-hex SHAs, retargeted_to_mlx_pin equal
// to the project's pin; LOCAL_FIXES.md numbers its items 1..N each once, and
// every overlay path an item names exists.
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

var fullSHA = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)

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
	for _, it := range lf.Items {
		for _, p := range it.Paths {
			// A path is relative to the overlay root, or to the folder
			// LOCAL_FIXES.md sits in when that is deeper.
			rel := filepath.FromSlash(p.Path)
			if filepath.IsAbs(p.Path) || (!exists(filepath.Join(c.Overlay, rel)) && !exists(filepath.Join(filepath.Dir(file), rel))) {
				fs = append(fs, Finding{File: file, Line: p.Line,
					Message: fmt.Sprintf("item %d names %s, which is not in the overlay %s", it.Number, p.Path, c.Overlay),
					Fix:     "correct the path (relative to the overlay root, or to the folder of LOCAL_FIXES.md), or restore the file"})
			}
		}
		if c.RequireStatus && it.Status == records.StatusUnknown {
			fs = append(fs, Finding{File: file, Line: it.Line, Message: fmt.Sprintf("item %d has no Status line", it.Number),
				Fix: "add `Status: retarget-only`, `Status: to be proposed` or `Status: proposed <URL>`"})
		}
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
