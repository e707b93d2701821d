package verify

import (
	"context"

	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// Records checks an overlay's records offline, as the reference's
// `rocm_overlay.py records` does, through records.Gate: every record
// present; UPSTREAM well formed, its commits full lowercase SHAs,
// retargeted_to_mlx_pin equal to the project's pin; LOCAL_FIXES.md numbering
// its items 1..N each once (in any order); the README's file counts stated
// and right; CORE_RESIDUAL.diff generated for UPSTREAM's commits and the
// current core files, with a note per patch.
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

// Name is the check's name in reports.
func (Records) Name() string { return "records" }

// Run checks the records files with the records gate, the verdict
// overlay:checkRecords gives too.
func (c Records) Run(ctx context.Context) Result {
	g := records.Gate{Overlay: c.Overlay, Pin: c.Pin, BackendDirs: c.BackendDirs,
		Upstream: c.Upstream, LocalFixes: c.LocalFixes, RequireStatus: c.RequireStatus}
	ps, _ := g.Check()
	var fs []Finding
	for _, p := range ps {
		fs = append(fs, Finding{File: p.File, Line: p.Line, Message: p.Message, Fix: p.Fix})
	}
	return result(c.Name(), fs, "")
}
