package forksync

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/ui"
	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// recordsReport is one overlay's LOCAL_FIXES.md.
type recordsReport struct {
	backend  string
	file     string // LOCAL_FIXES.md's path; "" when the overlay has none
	items    []records.Item
	problems []records.Problem
	upstream records.Upstream
	// backendDirs are the fork's directories (fork.dirs), against which an
	// item's backend-relative paths resolve.
	backendDirs []string
}

// Records reads the LOCAL_FIXES.md and UPSTREAM of every backend's overlay
// (only backend's when it is not ""), in backend order.
func Records(cfg *configs.Config, backend string) ([]recordsReport, error) {
	var names []string
	for n, pb := range cfg.Project.Backends {
		if pb != nil && pb.Overlay != "" && (backend == "" || n == backend) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		if backend != "" {
			return nil, fail.Configf("backends.%s in %s has no overlay:, so it has no records", backend, cfg.Project.File)
		}
		return nil, fail.Configf("no backend in %s has an overlay:, so there are no records", cfg.Project.File)
	}
	sort.Strings(names)
	var out []recordsReport
	for _, n := range names {
		ov := cfg.Overlay(n)
		r := recordsReport{backend: n}
		if pb := cfg.Project.Backends[n]; pb.Fork != nil {
			r.backendDirs = pb.Fork.Dirs
		}
		if data, err := records.ReadRecord(filepath.Join(ov, records.UpstreamName)); err == nil {
			r.upstream, _ = records.ParseUpstream(data)
		}
		path := filepath.Join(ov, records.LocalFixesName)
		data, err := records.ReadRecord(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case fail.KindOf(err) == fail.Config:
			return nil, err // a FIFO or a device, said with the file
		case err != nil:
			return nil, fmt.Errorf("forksync: reading %s: %w", path, err)
		default:
			lf, probs := records.ParseLocalFixes(data)
			r.file, r.items, r.problems = path, lf.Items, append(probs, lf.Numbering()...)
		}
		out = append(out, r)
	}
	return out, nil
}

// Render writes the items with their status, then what to do about them.
// Everything taken from the records (titles, links, paths, commits,
// problems quoting them) is printed through ui.Escape: an ESC sequence or
// a newline in LOCAL_FIXES.md is shown, not obeyed.
func (r recordsReport) Render(w io.Writer) {
	e := ui.Escape
	if r.file == "" {
		fmt.Fprintf(w, "%s: the overlay has no %s (no local changes recorded)\n", r.backend, records.LocalFixesName)
		return
	}
	fmt.Fprintf(w, "%s: %s", r.backend, e(r.file))
	if c, ok := r.upstream.Get("commit"); ok {
		fmt.Fprintf(w, " (on fork commit %s", e(short(c.Value)))
		if p, ok := r.upstream.Get("retargeted_to_mlx_pin"); ok {
			fmt.Fprintf(w, ", MLX %s", e(short(p.Value)))
		}
		fmt.Fprint(w, ")")
	}
	fmt.Fprintln(w)
	// Paths resolve against the overlay (as written, or under a backend
	// directory); the rest are upstream or engine files the item mentions.
	layout, _ := records.ReadLayout(filepath.Dir(r.file), r.backendDirs, nil)
	counts := map[records.Status]int{}
	for _, it := range r.items {
		counts[it.Status]++
		status := it.Status.String()
		if it.Status == records.StatusProposed {
			status += " " + e(it.Link)
		}
		if it.StatusFrom == records.SourceProse || it.StatusFrom == records.SourceSection {
			status += ", from its " + it.StatusFrom.String()
		}
		fmt.Fprintf(w, "  %d. %s [%s]\n", it.Number, e(it.Title), status)
		outside := 0
		for _, p := range it.Paths {
			if layout == nil {
				fmt.Fprintf(w, "       %s\n", e(p.Path))
				continue
			}
			if f := layout.Resolve(p.Path); f != "" {
				fmt.Fprintf(w, "       %s\n", e(f))
			} else {
				outside++
			}
		}
		if outside > 0 {
			fmt.Fprintf(w, "       (and %s outside the overlay: upstream or engine files)\n", plural.Count(outside, "name"))
		}
	}
	fmt.Fprintf(w, "  %s: %d retarget-only, %d applies to the fork, %d to be proposed, %d proposed, %d without a status\n",
		plural.Count(len(r.items), "item"), counts[records.StatusRetargetOnly], counts[records.StatusAppliesToFork],
		counts[records.StatusToBeProposed], counts[records.StatusProposed], counts[records.StatusUnknown])
	for _, p := range r.problems {
		fmt.Fprintf(w, "  %s: %s; %s\n", e(fail.Pos{File: r.file, Line: p.Line}.String()), e(p.Message), e(p.Fix))
	}
}
