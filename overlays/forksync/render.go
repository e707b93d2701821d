package forksync

import (
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Render writes the drift report for people: each core file, and the
// upstream hunks the overlay does not contain, line by line.
func (r *driftReport) Render(w io.Writer) {
	fmt.Fprintf(w, "overlay %s: upstream %s..%s\n", r.overlay, short(r.pin), short(r.candidate))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range r.files {
		switch {
		case !f.moved:
			fmt.Fprintf(w, "%s: unchanged upstream\n", f.path)
			continue
		case !f.inOverlay:
			fmt.Fprintf(w, "%s: upstream changed it, and the overlay lacks it (fork.core names it)\n", f.path)
		case f.deleted:
			fmt.Fprintf(w, "%s: upstream removed it; the overlay would bring it back\n", f.path)
		case f.added:
			fmt.Fprintf(w, "%s: upstream added it; the overlay replaces upstream's new file\n", f.path)
		case f.binary:
			fmt.Fprintf(w, "%s: upstream changed this binary file; compare it by hand\n", f.path)
		case len(f.missing) == 0:
			fmt.Fprintf(w, "%s: upstream changed it; the overlay has all %s\n", f.path, plural.Count(f.contained, "hunk"))
			continue
		default:
			fmt.Fprintf(w, "%s: upstream changed it; the overlay lacks %d of %s (it would revert them):\n", f.path, len(f.missing), plural.Count(len(f.missing)+f.contained, "hunk"))
		}
		for _, h := range f.missing {
			fmt.Fprintf(w, "  %s\n", h.header())
			for _, l := range h.lines {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	if moved := r.moved(); len(moved) > 0 {
		fmt.Fprintf(w, "%s moved upstream: %s\n", plural.Count(len(moved), "core file"), strings.Join(moved, ", "))
	} else {
		fmt.Fprintln(w, "no core file moved upstream")
	}
}

// Render writes what a sync did: the commits, the files by what happened
// to them, and notes.
func (r *syncResult) Render(w io.Writer) {
	if !r.changed() && len(r.conflicts) == 0 {
		fmt.Fprintf(w, "overlay already at fork commit %s: nothing changed (%s kept)\n", short(r.to), plural.Count(r.localOnly, "local-only file"))
	} else {
		fmt.Fprintf(w, "fork %s -> %s", short(r.from), short(r.to))
		if r.base != r.newBase {
			fmt.Fprintf(w, "; the fork's merge base with MLX moved %s -> %s", short(r.base), short(r.newBase))
		}
		fmt.Fprintln(w)
		for _, g := range []struct {
			what  string
			paths []string
		}{{"added", r.added}, {"updated", r.updated}, {"merged with local changes", r.merged}, {"removed", r.removed}} {
			for _, p := range g.paths {
				fmt.Fprintf(w, "  %s: %s\n", g.what, p)
			}
		}
		fmt.Fprintf(w, "  %s kept\n", plural.Count(r.localOnly, "local-only file"))
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
