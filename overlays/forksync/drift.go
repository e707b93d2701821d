package forksync

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays"
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// driftOptions say which overlay to compare with which upstream range.
type driftOptions struct {
	cacheRoot string
	upstream  string // MLX's repository: URL or absolute path
	pin       string // the pin the overlay was retargeted to
	candidate string // the pin to compare with; "" means upstream's HEAD
	overlay   string
	records   []string // overlay files that are records, never core files
	core      []string // core files named by the project (fork.core), checked even when not in the overlay
}

// driftReport is what upstream changed under an overlay's core files.
type driftReport struct {
	overlay        string
	pin, candidate string // full commit ids
	files          []fileDrift
	Notes          []string
}

// moved lists the core files upstream changed.
func (r *driftReport) moved() []string {
	var out []string
	for _, f := range r.files {
		if f.moved {
			out = append(out, f.path)
		}
	}
	return out
}

// fileDrift is one core file of the overlay.
type fileDrift struct {
	path      string
	inOverlay bool
	moved     bool // upstream changed it between the pin and the candidate
	deleted   bool // upstream removed it at the candidate
	added     bool // upstream added it at the candidate (the overlay shadows a new file)
	binary    bool
	// missing are the upstream hunks the overlay does not contain: the
	// changes a whole-file overlay would silently revert.
	missing   []hunk
	contained int // upstream hunks the overlay already has
}

// Drift compares each core file of the overlay (every overlay file that
// replaces an upstream file at the pin or at the candidate, and o.Core)
// with upstream's change between o.Pin and o.Candidate.
func Drift(ctx context.Context, o driftOptions) (*driftReport, error) {
	if o.upstream == "" {
		return nil, fail.Configf("overlay drift needs MLX's history: set source.git in mlxbuild.yaml (a URL or a local clone), or make source.dir a git checkout")
	}
	if o.pin == "" {
		return nil, fail.Configf("overlay drift needs the pin the overlay was retargeted to: set source.pin in mlxbuild.yaml or retargeted_to_mlx_pin in the overlay's UPSTREAM")
	}
	if o.candidate != "" {
		if err := checkArgRev("overlay drift: -candidate", o.candidate, "give an MLX commit id, a branch or a tag"); err != nil {
			return nil, err
		}
	}
	revs := []string{o.pin}
	if o.candidate != "" {
		revs = append(revs, o.candidate)
	}
	repo, err := openRepo(ctx, o.cacheRoot, o.upstream, revs...)
	if err != nil {
		return nil, err
	}
	cand := o.candidate
	if cand == "" {
		if err := repo.refresh(ctx, o.cacheRoot); err != nil {
			return nil, err
		}
		cand = "HEAD"
	}
	rep := &driftReport{overlay: o.overlay}
	if rep.pin, err = repo.resolve(ctx, o.pin); err != nil {
		return nil, err
	}
	if rep.candidate, err = repo.resolve(ctx, cand); err != nil {
		return nil, err
	}
	files, err := overlays.OverlayFiles(o.overlay, o.records)
	if err != nil {
		return nil, err
	}
	var paths []string
	for rel := range files {
		paths = append(paths, filepath.ToSlash(rel))
	}
	// Only the overlay's files that upstream has at one of the two commits
	// are core files; the rest (the backend directory) upstream never had.
	atPin, err := repo.listPaths(ctx, rep.pin, paths)
	if err != nil {
		return nil, err
	}
	atCand, err := repo.listPaths(ctx, rep.candidate, paths)
	if err != nil {
		return nil, err
	}
	core := map[string]bool{}
	for _, p := range append(atPin, atCand...) {
		core[p] = true
	}
	for _, p := range o.core {
		core[trimSlash(p)] = true
	}
	list := make([]string, 0, len(core))
	for p := range core {
		list = append(list, p)
	}
	sort.Strings(list)
	if len(list) == 0 {
		rep.Notes = append(rep.Notes, "the overlay replaces no upstream file: nothing can drift")
		return rep, nil
	}
	// Paths are literal (a name may start with ':', git's pathspec magic).
	diffArgs := []string{"--literal-pathspecs", "diff", "--no-color", "--no-ext-diff", "--no-renames"}
	changed, err := gitRaw(ctx, repo.dir, append(append(diffArgs, "-z", "--name-only", "--end-of-options", rep.pin, rep.candidate, "--"), list...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: git diff %s %s in %s: %w", short(rep.pin), short(rep.candidate), o.upstream, err)
	}
	out, err := git(ctx, repo.dir, append(append(diffArgs, "-U3", "--end-of-options", rep.pin, rep.candidate, "--"), list...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: git diff %s %s in %s: %w", short(rep.pin), short(rep.candidate), o.upstream, err)
	}
	diffs, err := parseDiff(out)
	if err != nil {
		return nil, err
	}
	byPath := map[string]fileDiff{}
	for _, d := range diffs {
		byPath[d.path] = d
	}
	// The NUL-separated list is exact whatever the names hold; a changed
	// file the patch's parse did not find must never read as unchanged.
	for _, p := range splitNUL(changed.Stdout) {
		if _, ok := byPath[p]; !ok {
			return nil, fmt.Errorf("forksync: upstream changed %q between %s and %s, but its diff could not be read; report this with the file name", p, short(rep.pin), short(rep.candidate))
		}
	}
	for _, p := range list {
		fd := fileDrift{path: p}
		data, err := os.ReadFile(filepath.Join(o.overlay, filepath.FromSlash(p)))
		fd.inOverlay = err == nil
		if d, ok := byPath[p]; ok {
			fd.moved, fd.deleted, fd.added, fd.binary = true, d.deleted, d.added, d.binary
			lines := splitText(data)
			for _, h := range d.hunks {
				if fd.inOverlay && hunkContained(h, lines) {
					fd.contained++
				} else {
					fd.missing = append(fd.missing, h)
				}
			}
		}
		rep.files = append(rep.files, fd)
	}
	return rep, nil
}

func hunkContained(h hunk, lines []string) bool {
	for _, b := range h.blocks() {
		if !b.containedIn(lines) {
			return false
		}
	}
	return true
}

// listPaths returns which of paths exist (as files) at commit.
func (r *repo) listPaths(ctx context.Context, commit string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	// -z: git quotes names with unusual bytes in its line output.
	res, err := gitRaw(ctx, r.dir, append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: listing files at %s in %s: %w", short(commit), r.url, err)
	}
	return splitNUL(res.Stdout), nil
}

// splitNUL splits git's -z output into its names.
func splitNUL(out []byte) []string {
	var names []string
	for _, n := range bytes.Split(out, []byte{0}) {
		if len(n) > 0 {
			names = append(names, string(n))
		}
	}
	return names
}

// refresh fetches every ref of the mirror, for "upstream's current HEAD".
func (r *repo) refresh(ctx context.Context, cacheRoot string) error {
	unlock, err := lockSrc(ctx, cacheRoot)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := git(ctx, r.dir, "fetch", "--quiet", "--prune", "origin"); err != nil {
		return fmt.Errorf("forksync: fetching %s: %w; check that it is reachable, or give the candidate pin", r.url, err)
	}
	return nil
}

// DriftOptionsFor builds the driftOptions of one backend's overlay: the pin
// is UPSTREAM's retargeted_to_mlx_pin when the overlay records one, else
// source.pin (a difference between the two is noted).
func DriftOptionsFor(cfg *configs.Config, backend, candidate string) (driftOptions, []string, error) {
	ov := cfg.Overlay(backend)
	if ov == "" {
		return driftOptions{}, nil, fail.Configf("backends.%s in %s has no overlay: nothing can drift", backend, cfg.Project.File)
	}
	spec, err := cfg.Spec(backend)
	if err != nil {
		return driftOptions{}, nil, err
	}
	o := driftOptions{cacheRoot: cfg.CacheRoot.Value, upstream: upstreamRepo(cfg.Project), pin: cfg.Project.Source.Pin,
		candidate: candidate, overlay: ov, records: spec.Records}
	if pb := cfg.Project.Backends[backend]; pb != nil && pb.Fork != nil {
		o.core = pb.Fork.Core
	}
	var notes []string
	if data, err := records.ReadRecord(filepath.Join(ov, records.UpstreamName)); err == nil {
		up, _ := records.ParseUpstream(data)
		if f, ok := up.Get("retargeted_to_mlx_pin"); ok && f.Value != "" {
			if err := checkRecordRev(filepath.Join(ov, records.UpstreamName), f); err != nil {
				return driftOptions{}, nil, err
			}
			if o.pin != "" && f.Value != o.pin {
				notes = append(notes, fmt.Sprintf("UPSTREAM:%d says the overlay was retargeted to %s, but source.pin is %s; drift is measured from UPSTREAM's pin. Retarget the overlay, or fix UPSTREAM", f.Line, short(f.Value), short(o.pin)))
			}
			o.pin = f.Value
		}
	}
	return o, notes, nil
}
