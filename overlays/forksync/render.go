package forksync

import (
	"fmt"
	"io"
	"strings"
)

// Render writes the drift report for people: each core file, and the
// upstream hunks the overlay does not contain, line by line.
func (r *DriftReport) Render(w io.Writer) {
	fmt.Fprintf(w, "overlay %s: upstream %s..%s\n", r.Overlay, short(r.Pin), short(r.Candidate))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range r.Files {
		switch {
		case !f.Moved:
			fmt.Fprintf(w, "%s: unchanged upstream\n", f.Path)
			continue
		case !f.InOverlay:
			fmt.Fprintf(w, "%s: upstream changed it, and the overlay lacks it (fork.core names it)\n", f.Path)
		case f.Deleted:
			fmt.Fprintf(w, "%s: upstream removed it; the overlay would bring it back\n", f.Path)
		case f.Added:
			fmt.Fprintf(w, "%s: upstream added it; the overlay replaces upstream's new file\n", f.Path)
		case f.Binary:
			fmt.Fprintf(w, "%s: upstream changed this binary file; compare it by hand\n", f.Path)
		case len(f.Missing) == 0:
			fmt.Fprintf(w, "%s: upstream changed it; the overlay has all %d hunk%s\n", f.Path, f.Contained, plural(f.Contained))
			continue
		default:
			fmt.Fprintf(w, "%s: upstream changed it; the overlay lacks %d of %d hunk%s (it would revert them):\n", f.Path, len(f.Missing), len(f.Missing)+f.Contained, plural(len(f.Missing)+f.Contained))
		}
		for _, h := range f.Missing {
			fmt.Fprintf(w, "  %s\n", h.Header())
			for _, l := range h.Lines {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
	if moved := r.Moved(); len(moved) > 0 {
		fmt.Fprintf(w, "%d core file%s moved upstream: %s\n", len(moved), plural(len(moved)), strings.Join(moved, ", "))
	} else {
		fmt.Fprintln(w, "no core file moved upstream")
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Render writes what a sync did: the commits, the files by what happened
// to them, and notes.
func (r *SyncResult) Render(w io.Writer) {
	if !r.Changed() && len(r.Conflicts) == 0 {
		fmt.Fprintf(w, "overlay already at fork commit %s: nothing changed (%d local-only file%s kept)\n", short(r.To), r.LocalOnly, plural(r.LocalOnly))
	} else {
		fmt.Fprintf(w, "fork %s -> %s", short(r.From), short(r.To))
		if r.Base != r.NewBase {
			fmt.Fprintf(w, "; the fork's merge base with MLX moved %s -> %s", short(r.Base), short(r.NewBase))
		}
		fmt.Fprintln(w)
		for _, g := range []struct {
			what  string
			paths []string
		}{{"added", r.Added}, {"updated", r.Updated}, {"merged with local changes", r.Merged}, {"removed", r.Removed}} {
			for _, p := range g.paths {
				fmt.Fprintf(w, "  %s: %s\n", g.what, p)
			}
		}
		fmt.Fprintf(w, "  %d local-only file%s kept\n", r.LocalOnly, plural(r.LocalOnly))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
