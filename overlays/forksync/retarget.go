package forksync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// retargetOptions say which overlay's core files move to which MLX pin.
type retargetOptions struct {
	cacheRoot   string
	backend     string   // whose overlay it is: names where the pre-images are kept ("" keeps none)
	Overlay     string   // absolute
	upstream    string   // MLX's repository: URL or absolute path
	oldPin      string   // the pin the core files follow now (UPSTREAM's retargeted_to_mlx_pin, else source.pin)
	newPin      string   // a commit id or a ref of Upstream
	backendDirs []string // the overlay's backend directories; their files are never retargeted
}

// retargetResult says what a retarget did, or would have done.
type retargetResult struct {
	from, to  string   // full pins
	merged    []string // core files that took upstream's change
	resolved  []string // conflicted core files taken as the user resolved them in the overlay
	unchanged int      // core files upstream did not change between the pins
	conflicts []conflict
	staged    string // the staging directory left for a conflicted retarget
	upstream  bool   // UPSTREAM's retargeted_to_mlx_pin was rewritten
	preimages string // where the overlay's files before the retarget are kept ("" for none)
}

// RetargetConflictError is Retarget's error when a core file did not merge:
// the overlay is as it was, the merge with its markers is in the staging
// copy.
type RetargetConflictError struct{ result *retargetResult }

func (e *RetargetConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "retarget to %s stopped: %s did not merge, and the overlay was left as it was:\n", short(e.result.to), plural.Count(len(e.result.conflicts), "core file"))
	for _, c := range e.result.conflicts {
		fmt.Fprintf(&b, "  %s: %s\n    staged copy: %s\n", c.path, c.why, c.staged)
	}
	fmt.Fprintf(&b, "resolve each conflict in the overlay's own file (copy the staged file over it and edit the markers out, or port upstream's hunks by hand), record it in LOCAL_FIXES.md, then run overlay:retarget %s again: a conflicted file you changed since is taken as resolved and the rest merges", e.result.to)
	return b.String()
}

// Kind is Failure: the retarget ran and found conflicts.
func (e *RetargetConflictError) Kind() fail.Kind { return fail.Failure }

// Retarget moves the overlay's core files from o.OldPin to o.NewPin: each
// one takes upstream's change between the two pins by a three-way merge
// (base: the file at the old pin, ours: the overlay's file, theirs: the
// file at the new pin), so the fork's hooks and local fixes stay and
// upstream's new code comes in. UPSTREAM's retargeted_to_mlx_pin becomes the
// new pin. Like Sync, everything is staged beside the overlay and swapped in
// only when every file merged; on a conflict the overlay is untouched and
// the staging copy holds the merges, markers included, for the user to read.
func Retarget(ctx context.Context, o retargetOptions) (*retargetResult, error) {
	if o.upstream == "" {
		return nil, fail.Configf("retarget needs MLX's history: set source.git in mlxbuild.yaml (a URL or a local clone), or make source.dir a git checkout")
	}
	if err := checkRev("the old pin", o.oldPin); err != nil {
		return nil, err
	}
	// The new pin becomes source.pin and retargeted_to_mlx_pin, both full
	// ids: a branch or tag would move under the record, as the reference's
	// tool refuses too.
	if !fullHex(o.newPin) {
		return nil, fail.Configf("the new pin %q is not a full 40-hex commit id; give the commit itself (git rev-parse <branch or tag> in MLX's repository prints it), as source.pin takes it", clipValue(o.newPin))
	}
	unlock, err := lockOverlay(ctx, o.cacheRoot, o.Overlay)
	if err != nil {
		return nil, err
	}
	defer unlock()
	repo, err := openRepo(ctx, o.cacheRoot, o.upstream, o.oldPin, o.newPin)
	if err != nil {
		return nil, err
	}
	res := &retargetResult{}
	if res.from, err = repo.resolve(ctx, o.oldPin); err != nil {
		return nil, err
	}
	if res.to, err = repo.resolve(ctx, o.newPin); err != nil {
		return nil, err
	}
	layout, err := records.ReadLayout(o.Overlay, o.backendDirs, nil)
	if err != nil {
		return nil, err
	}
	core := layout.Core()
	if len(core) == 0 {
		return nil, fail.Configf("the overlay %s has no core files (every file is under %s): there is nothing to retarget", o.Overlay, strings.Join(layout.BackendDirs, ", "))
	}
	old, err := repo.readTree(ctx, res.from, core)
	if err != nil {
		return nil, err
	}
	theirs, err := repo.readTree(ctx, res.to, core)
	if err != nil {
		return nil, err
	}
	ours, err := readOverlay(o.Overlay)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "mlxbuild-retarget-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	m := &merger{dir: scratch}
	write := files{}
	// A re-run after a conflict between the same pins: the files the user
	// resolved in the overlay since are taken as they are.
	prev := readRetargetState(o.Overlay)
	if prev != nil && (prev.From != res.from || prev.To != res.to) {
		prev = nil
	}
	l := retargetLabels(res.from, res.to)
	for _, p := range core {
		b, inOld := old[p]
		t, inNew := theirs[p]
		mine := ours[p]
		switch {
		case inOld && inNew && string(b.data) == string(t.data):
			res.unchanged++
		case !inNew && inOld:
			res.conflicts = append(res.conflicts, conflict{path: p, why: fmt.Sprintf("MLX at %s has no %s (moved or removed upstream); move the overlay's change to where the code went, or drop the file", short(res.to), p)})
			write[p] = mine
		case !inNew && !inOld:
			res.unchanged++ // a file only the overlay adds
		default:
			data, conflicted, err := m.merge3(ctx, mine.data, b.data, t.data, labels{l.ours + " " + p, l.base, l.theirs})
			if err != nil {
				return nil, fmt.Errorf("%w (merging %s)", err, p)
			}
			if conflicted && prev != nil && prev.resolved(p, mine.data) {
				res.resolved = append(res.resolved, p)
				write[p] = mine
				continue
			}
			if conflicted {
				why := fmt.Sprintf("the overlay and upstream changed the same lines; the staged copy has conflict markers (<<<<<<< %s %s, ||||||| %s, >>>>>>> %s)", l.ours, p, l.base, l.theirs)
				if isBinary(data) {
					why = "a binary file both the overlay and upstream changed; pick one version"
				}
				res.conflicts = append(res.conflicts, conflict{path: p, why: why})
			} else if string(data) != string(mine.data) {
				res.merged = append(res.merged, p)
			}
			write[p] = blob{data: data, exec: mine.exec}
		}
	}
	// Without UPSTREAM the pin lives in mlxbuild.yaml alone.
	if up, ok := ours[records.UpstreamName]; ok && res.to != res.from {
		write[records.UpstreamName] = blob{data: setUpstream(up.data, [][2]string{{"retargeted_to_mlx_pin", res.to}}), exec: up.exec}
		res.upstream = true
	}
	if len(res.merged) == 0 && len(res.conflicts) == 0 && !res.upstream {
		return res, clearRetargetState(o.Overlay)
	}
	if o.backend != "" && res.from != res.to {
		// The overlay before the bump, for apiDrift's baseline: every
		// file this run changes, and every conflicted one the user will.
		var changes []string
		for p, b := range write {
			if mine, ok := ours[p]; !ok || string(mine.data) != string(b.data) || mine.exec != b.exec {
				changes = append(changes, p)
			}
		}
		for _, c := range res.conflicts {
			if !slices.Contains(changes, c.path) {
				changes = append(changes, c.path)
			}
		}
		if err := savePreimages(o.cacheRoot, o.backend, o.Overlay, res.from, res.to, changes); err != nil {
			return nil, err
		}
		res.preimages = PreimagesDir(o.cacheRoot, o.backend, res.from, res.to)
	}
	staged := retargetStageDir(o.Overlay)
	conflicted, err := commit(o.Overlay, staged, write, nil, res.conflicts)
	if err != nil {
		return nil, err
	}
	if conflicted {
		res.staged = staged
		at := map[string][]byte{}
		for _, c := range res.conflicts {
			at[c.path] = ours[c.path].data
		}
		if err := writeRetargetState(o.Overlay, res.from, res.to, at); err != nil {
			return nil, err
		}
		return res, &RetargetConflictError{result: res}
	}
	return res, clearRetargetState(o.Overlay)
}

// retargetLabels are the conflict markers' labels of a retarget from..to,
// as docs/pin-bump.md shows them: "<<<<<<< overlay <path>",
// "||||||| mlx <old> (old pin)", ">>>>>>> mlx <new> (new pin)".
func retargetLabels(from, to string) labels {
	return labels{"overlay", "mlx " + short(from) + " (old pin)", "mlx " + short(to) + " (new pin)"}
}

// checkRev refuses, as a usage error, a revision git could read as an
// option or that is not a well-formed ref or commit id, before it reaches
// any git command line.
func checkRev(what, rev string) error {
	if err := gitrun.CheckRev(rev); err != nil {
		return fail.Configf("%s %q %v; give a commit id (40 hex), a branch or a tag of MLX", what, rev, err)
	}
	return nil
}

// Render writes what the retarget did.
func (r *retargetResult) Render(w io.Writer) {
	if r.from == r.to {
		fmt.Fprintf(w, "already retargeted to %s\n", short(r.to))
		return
	}
	for _, p := range r.merged {
		fmt.Fprintf(w, "  merged   %s\n", p)
	}
	for _, p := range r.resolved {
		fmt.Fprintf(w, "  resolved %s (as you resolved it in the overlay)\n", p)
	}
	for _, c := range r.conflicts {
		fmt.Fprintf(w, "  CONFLICT %s\n", c.path)
	}
	if len(r.conflicts) > 0 {
		return
	}
	fmt.Fprintf(w, "retargeted the core files from %s to %s: %d merged, %d unchanged upstream", short(r.from), short(r.to), len(r.merged), r.unchanged)
	if r.upstream {
		fmt.Fprint(w, "; UPSTREAM's retargeted_to_mlx_pin updated")
	}
	fmt.Fprintln(w)
	if r.preimages != "" {
		fmt.Fprintf(w, "the overlay's files as they were before: %s (overlay:apiDrift builds its baseline with them)\n", r.preimages)
	}
	fmt.Fprintln(w, "next: run overlay:apiDrift on the new pin for the API breaks, fix them in the overlay; then set source.pin to the new pin, build, run overlay:checkRecords and record every fix in LOCAL_FIXES.md")
}

// RetargetOptionsFor builds the retargetOptions of one backend's overlay.
// The backend is -backend, else the one with a fork:, else the only one
// with an overlay.
func RetargetOptionsFor(cfg *configs.Config, backend, newPin string) (string, retargetOptions, error) {
	name := backend
	if name == "" {
		if n, _, err := ForkBackend(cfg, ""); err == nil {
			name = n
		} else {
			var with []string
			for _, n := range configs.Names {
				if cfg.Overlay(n) != "" {
					with = append(with, n)
				}
			}
			if len(with) != 1 {
				return "", retargetOptions{}, fail.Configf("pick the overlay to retarget with -backend=NAME (backends with an overlay: %v)", with)
			}
			name = with[0]
		}
	}
	ov := cfg.Overlay(name)
	if ov == "" {
		return "", retargetOptions{}, fail.Configf("backends.%s in %s has no overlay: nothing to retarget", name, cfg.Project.File)
	}
	o := retargetOptions{cacheRoot: cfg.CacheRoot.Value, backend: name, Overlay: ov, upstream: upstreamRepo(cfg.Project), oldPin: cfg.Project.Source.Pin, newPin: newPin}
	if pb := cfg.Project.Backends[name]; pb != nil && pb.Fork != nil {
		o.backendDirs = pb.Fork.Dirs
	}
	if data, err := records.ReadRecord(filepath.Join(ov, records.UpstreamName)); err == nil {
		up, _ := records.ParseUpstream(data)
		if f, ok := up.Get("retargeted_to_mlx_pin"); ok && f.Value != "" {
			o.oldPin = f.Value
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", retargetOptions{}, fmt.Errorf("forksync: reading %s: %w", filepath.Join(ov, records.UpstreamName), err)
	}
	if o.oldPin == "" {
		return "", retargetOptions{}, fail.Configf("no pin to retarget from: set source.pin in %s or retargeted_to_mlx_pin in the overlay's UPSTREAM", cfg.Project.File)
	}
	return name, o, nil
}
