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

// DriftOptions say which overlay to compare with which upstream range.
type DriftOptions struct {
	CacheRoot string
	Upstream  string // MLX's repository: URL or absolute path
	Pin       string // the pin the overlay was retargeted to
	Candidate string // the pin to compare with; "" means upstream's HEAD
	Overlay   string
	Records   []string // overlay files that are records, never core files
	Core      []string // core files named by the project (fork.core), checked even when not in the overlay
}

// DriftReport is what upstream changed under an overlay's core files.
type DriftReport struct {
	Overlay        string
	Pin, Candidate string // full commit ids
	Files          []FileDrift
	Notes          []string
}

// Moved lists the core files upstream changed.
func (r *DriftReport) Moved() []string {
	var out []string
	for _, f := range r.Files {
		if f.Moved {
			out = append(out, f.Path)
		}
	}
	return out
}

// FileDrift is one core file of the overlay.
type FileDrift struct {
	Path      string
	InOverlay bool
	Moved     bool // upstream changed it between the pin and the candidate
	Deleted   bool // upstream removed it at the candidate
	Added     bool // upstream added it at the candidate (the overlay shadows a new file)
	Binary    bool
	// Missing are the upstream hunks the overlay does not contain: the
	// changes a whole-file overlay would silently revert.
	Missing   []Hunk
	Contained int // upstream hunks the overlay already has
}

// Drift compares each core file of the overlay (every overlay file that
// replaces an upstream file at the pin or at the candidate, and o.Core)
// with upstream's change between o.Pin and o.Candidate.
func Drift(ctx context.Context, o DriftOptions) (*DriftReport, error) {
	if o.Upstream == "" {
		return nil, fail.Configf("overlay drift needs MLX's history: set source.git in mlxbuild.yaml (a URL or a local clone), or make source.dir a git checkout")
	}
	if o.Pin == "" {
		return nil, fail.Configf("overlay drift needs the pin the overlay was retargeted to: set source.pin in mlxbuild.yaml or retargeted_to_mlx_pin in the overlay's UPSTREAM")
	}
	if o.Candidate != "" {
		if err := checkArgRev("overlay drift: -candidate", o.Candidate, "give an MLX commit id, a branch or a tag"); err != nil {
			return nil, err
		}
	}
	revs := []string{o.Pin}
	if o.Candidate != "" {
		revs = append(revs, o.Candidate)
	}
	repo, err := openRepo(ctx, o.CacheRoot, o.Upstream, revs...)
	if err != nil {
		return nil, err
	}
	cand := o.Candidate
	if cand == "" {
		if err := repo.refresh(ctx, o.CacheRoot); err != nil {
			return nil, err
		}
		cand = "HEAD"
	}
	rep := &DriftReport{Overlay: o.Overlay}
	if rep.Pin, err = repo.Resolve(ctx, o.Pin); err != nil {
		return nil, err
	}
	if rep.Candidate, err = repo.Resolve(ctx, cand); err != nil {
		return nil, err
	}
	files, err := overlays.OverlayFiles(o.Overlay, o.Records)
	if err != nil {
		return nil, err
	}
	var paths []string
	for rel := range files {
		paths = append(paths, filepath.ToSlash(rel))
	}
	// Only the overlay's files that upstream has at one of the two commits
	// are core files; the rest (the backend directory) upstream never had.
	atPin, err := repo.listPaths(ctx, rep.Pin, paths)
	if err != nil {
		return nil, err
	}
	atCand, err := repo.listPaths(ctx, rep.Candidate, paths)
	if err != nil {
		return nil, err
	}
	core := map[string]bool{}
	for _, p := range append(atPin, atCand...) {
		core[p] = true
	}
	for _, p := range o.Core {
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
	changed, err := gitRaw(ctx, repo.Dir, append(append(diffArgs, "-z", "--name-only", "--end-of-options", rep.Pin, rep.Candidate, "--"), list...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: git diff %s %s in %s: %w", short(rep.Pin), short(rep.Candidate), o.Upstream, err)
	}
	out, err := git(ctx, repo.Dir, append(append(diffArgs, "-U3", "--end-of-options", rep.Pin, rep.Candidate, "--"), list...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: git diff %s %s in %s: %w", short(rep.Pin), short(rep.Candidate), o.Upstream, err)
	}
	diffs, err := parseDiff(out)
	if err != nil {
		return nil, err
	}
	byPath := map[string]FileDiff{}
	for _, d := range diffs {
		byPath[d.Path] = d
	}
	// The NUL-separated list is exact whatever the names hold; a changed
	// file the patch's parse did not find must never read as unchanged.
	for _, p := range splitNUL(changed.Stdout) {
		if _, ok := byPath[p]; !ok {
			return nil, fmt.Errorf("forksync: upstream changed %q between %s and %s, but its diff could not be read; report this with the file name", p, short(rep.Pin), short(rep.Candidate))
		}
	}
	for _, p := range list {
		fd := FileDrift{Path: p}
		data, err := os.ReadFile(filepath.Join(o.Overlay, filepath.FromSlash(p)))
		fd.InOverlay = err == nil
		if d, ok := byPath[p]; ok {
			fd.Moved, fd.Deleted, fd.Added, fd.Binary = true, d.Deleted, d.Added, d.Binary
			lines := splitText(data)
			for _, h := range d.Hunks {
				if fd.InOverlay && hunkContained(h, lines) {
					fd.Contained++
				} else {
					fd.Missing = append(fd.Missing, h)
				}
			}
		}
		rep.Files = append(rep.Files, fd)
	}
	return rep, nil
}

func hunkContained(h Hunk, lines []string) bool {
	for _, b := range h.blocks() {
		if !b.containedIn(lines) {
			return false
		}
	}
	return true
}

// listPaths returns which of paths exist (as files) at commit.
func (r *Repo) listPaths(ctx context.Context, commit string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	// -z: git quotes names with unusual bytes in its line output.
	res, err := gitRaw(ctx, r.Dir, append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("forksync: listing files at %s in %s: %w", short(commit), r.URL, err)
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
func (r *Repo) refresh(ctx context.Context, cacheRoot string) error {
	unlock, err := lockSrc(ctx, cacheRoot)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := git(ctx, r.Dir, "fetch", "--quiet", "--prune", "origin"); err != nil {
		return fmt.Errorf("forksync: fetching %s: %w; check that it is reachable, or give the candidate pin", r.URL, err)
	}
	return nil
}

// DriftOptionsFor builds the DriftOptions of one backend's overlay: the pin
// is UPSTREAM's retargeted_to_mlx_pin when the overlay records one, else
// source.pin (a difference between the two is noted).
func DriftOptionsFor(cfg *configs.Config, backend, candidate string) (DriftOptions, []string, error) {
	ov := cfg.Overlay(backend)
	if ov == "" {
		return DriftOptions{}, nil, fail.Configf("backends.%s in %s has no overlay: nothing can drift", backend, cfg.Project.File)
	}
	spec, err := cfg.Spec(backend)
	if err != nil {
		return DriftOptions{}, nil, err
	}
	o := DriftOptions{CacheRoot: cfg.CacheRoot.Value, Upstream: upstreamRepo(cfg.Project), Pin: cfg.Project.Source.Pin,
		Candidate: candidate, Overlay: ov, Records: spec.Records}
	if pb := cfg.Project.Backends[backend]; pb != nil && pb.Fork != nil {
		o.Core = pb.Fork.Core
	}
	var notes []string
	if data, err := os.ReadFile(filepath.Join(ov, records.UpstreamName)); err == nil {
		up, _ := records.ParseUpstream(data)
		if f, ok := up.Get("retargeted_to_mlx_pin"); ok && f.Value != "" {
			if err := checkRecordRev(filepath.Join(ov, records.UpstreamName), f); err != nil {
				return DriftOptions{}, nil, err
			}
			if o.Pin != "" && f.Value != o.Pin {
				notes = append(notes, fmt.Sprintf("UPSTREAM:%d says the overlay was retargeted to %s, but source.pin is %s; drift is measured from UPSTREAM's pin. Retarget the overlay, or fix UPSTREAM", f.Line, short(f.Value), short(o.Pin)))
			}
			o.Pin = f.Value
		}
	}
	return o, notes, nil
}
