package forksync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// RetargetOptions say which overlay's core files move to which MLX pin.
type RetargetOptions struct {
	CacheRoot   string
	Overlay     string   // absolute
	Upstream    string   // MLX's repository: URL or absolute path
	OldPin      string   // the pin the core files follow now (UPSTREAM's retargeted_to_mlx_pin, else source.pin)
	NewPin      string   // a commit id or a ref of Upstream
	BackendDirs []string // the overlay's backend directories; their files are never retargeted
}

// RetargetResult says what a retarget did, or would have done.
type RetargetResult struct {
	From, To  string   // full pins
	Merged    []string // core files that took upstream's change
	Unchanged int      // core files upstream did not change between the pins
	Conflicts []Conflict
	Staged    string // the staging directory left for a conflicted retarget
	Upstream  bool   // UPSTREAM's retargeted_to_mlx_pin was rewritten
}

// RetargetConflictError is Retarget's error when a core file did not merge:
// the overlay is as it was, the merge with its markers is in the staging
// copy.
type RetargetConflictError struct{ Result *RetargetResult }

func (e *RetargetConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "retarget to %s stopped: %d core file(s) did not merge, and the overlay was left as it was:\n", short(e.Result.To), len(e.Result.Conflicts))
	for _, c := range e.Result.Conflicts {
		fmt.Fprintf(&b, "  %s: %s\n    staged copy: %s\n", c.Path, c.Why, c.Staged)
	}
	fmt.Fprintf(&b, "port upstream's change into the overlay's file by hand (the staged copies in %s show the merge), record it in LOCAL_FIXES.md, then retarget again", e.Result.Staged)
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
func Retarget(ctx context.Context, o RetargetOptions) (*RetargetResult, error) {
	if o.Upstream == "" {
		return nil, fail.Configf("retarget needs MLX's history: set source.git in mlxbuild.yaml (a URL or a local clone), or make source.dir a git checkout")
	}
	for _, rev := range []struct{ what, rev string }{{"the old pin", o.OldPin}, {"the new pin", o.NewPin}} {
		if err := checkRev(rev.what, rev.rev); err != nil {
			return nil, err
		}
	}
	unlock, err := lockOverlay(ctx, o.CacheRoot, o.Overlay)
	if err != nil {
		return nil, err
	}
	defer unlock()
	repo, err := openRepo(ctx, o.CacheRoot, o.Upstream, o.OldPin, o.NewPin)
	if err != nil {
		return nil, err
	}
	res := &RetargetResult{}
	if res.From, err = repo.Resolve(ctx, o.OldPin); err != nil {
		return nil, err
	}
	if res.To, err = repo.Resolve(ctx, o.NewPin); err != nil {
		return nil, err
	}
	layout, err := records.ReadLayout(o.Overlay, o.BackendDirs, nil)
	if err != nil {
		return nil, err
	}
	core := layout.Core()
	if len(core) == 0 {
		return nil, fail.Configf("the overlay %s has no core files (every file is under %s): there is nothing to retarget", o.Overlay, strings.Join(layout.BackendDirs, ", "))
	}
	old, err := repo.readTree(ctx, res.From, core)
	if err != nil {
		return nil, err
	}
	theirs, err := repo.readTree(ctx, res.To, core)
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
	write := Files{}
	l := labels{"overlay", "pin@" + short(res.From), "pin@" + short(res.To)}
	for _, p := range core {
		b, inOld := old[p]
		t, inNew := theirs[p]
		mine := ours[p]
		switch {
		case inOld && inNew && string(b.Data) == string(t.Data):
			res.Unchanged++
		case !inNew && inOld:
			res.Conflicts = append(res.Conflicts, Conflict{Path: p, Why: fmt.Sprintf("MLX at %s has no %s (moved or removed upstream); move the overlay's change to where the code went, or drop the file", short(res.To), p)})
			write[p] = mine
		case !inNew && !inOld:
			res.Unchanged++ // a file only the overlay adds
		default:
			data, conflicted, err := m.merge3(ctx, mine.Data, b.Data, t.Data, labels{l.ours + ":" + p, l.base, l.theirs})
			if err != nil {
				return nil, fmt.Errorf("%w (merging %s)", err, p)
			}
			if conflicted {
				why := "the overlay and upstream changed the same lines; the staged copy has conflict markers (<<<<<<< overlay, ||||||| old pin, >>>>>>> new pin)"
				if isBinary(data) {
					why = "a binary file both the overlay and upstream changed; pick one version"
				}
				res.Conflicts = append(res.Conflicts, Conflict{Path: p, Why: why})
			} else if string(data) != string(mine.Data) {
				res.Merged = append(res.Merged, p)
			}
			write[p] = Blob{Data: data, Exec: mine.Exec}
		}
	}
	// Without UPSTREAM the pin lives in mlxbuild.yaml alone.
	if up, ok := ours[records.UpstreamName]; ok && res.To != res.From {
		write[records.UpstreamName] = Blob{Data: setUpstream(up.Data, [][2]string{{"retargeted_to_mlx_pin", res.To}}), Exec: up.Exec}
		res.Upstream = true
	}
	if len(res.Merged) == 0 && len(res.Conflicts) == 0 && !res.Upstream {
		return res, nil
	}
	staged := retargetStageDir(o.Overlay)
	conflicted, err := commit(o.Overlay, staged, write, nil, res.Conflicts)
	if err != nil {
		return nil, err
	}
	if conflicted {
		res.Staged = staged
		return res, &RetargetConflictError{Result: res}
	}
	return res, nil
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
func (r *RetargetResult) Render(w io.Writer) {
	if r.From == r.To {
		fmt.Fprintf(w, "already retargeted to %s\n", short(r.To))
		return
	}
	for _, p := range r.Merged {
		fmt.Fprintf(w, "  merged   %s\n", p)
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "  CONFLICT %s\n", c.Path)
	}
	if len(r.Conflicts) > 0 {
		return
	}
	fmt.Fprintf(w, "retargeted the core files from %s to %s: %d merged, %d unchanged upstream", short(r.From), short(r.To), len(r.Merged), r.Unchanged)
	if r.Upstream {
		fmt.Fprint(w, "; UPSTREAM's retargeted_to_mlx_pin updated")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "next: set source.pin to the new pin, run overlay:apiDrift, build, then overlay:checkRecords and record every fix in LOCAL_FIXES.md")
}

// RetargetOptionsFor builds the RetargetOptions of one backend's overlay.
// The backend is -backend, else the one with a fork:, else the only one
// with an overlay.
func RetargetOptionsFor(cfg *configs.Config, backend, newPin string) (string, RetargetOptions, error) {
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
				return "", RetargetOptions{}, fail.Configf("pick the overlay to retarget with -backend=NAME (backends with an overlay: %v)", with)
			}
			name = with[0]
		}
	}
	ov := cfg.Overlay(name)
	if ov == "" {
		return "", RetargetOptions{}, fail.Configf("backends.%s in %s has no overlay: nothing to retarget", name, cfg.Project.File)
	}
	o := RetargetOptions{CacheRoot: cfg.CacheRoot.Value, Overlay: ov, Upstream: upstreamRepo(cfg.Project), OldPin: cfg.Project.Source.Pin, NewPin: newPin}
	if pb := cfg.Project.Backends[name]; pb != nil && pb.Fork != nil {
		o.BackendDirs = pb.Fork.Dirs
	}
	if data, err := os.ReadFile(filepath.Join(ov, records.UpstreamName)); err == nil {
		up, _ := records.ParseUpstream(data)
		if f, ok := up.Get("retargeted_to_mlx_pin"); ok && f.Value != "" {
			o.OldPin = f.Value
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", RetargetOptions{}, fmt.Errorf("forksync: reading %s: %w", filepath.Join(ov, records.UpstreamName), err)
	}
	if o.OldPin == "" {
		return "", RetargetOptions{}, fail.Configf("no pin to retarget from: set source.pin in %s or retargeted_to_mlx_pin in the overlay's UPSTREAM", cfg.Project.File)
	}
	return name, o, nil
}
