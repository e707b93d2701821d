package flow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// decision is cache.Decide applied to this run, with what acting on it
// needs: the stamp to write after a successful build and the compiler
// launcher that configure and Ninja use.
type decision struct {
	cache.Decision
	cur      *cache.Stamp
	launcher *compilecache.Config // nil for none
	ldefs    map[string]string    // the launcher's CMake defines
	lenv     []string             // the launcher's environment for Ninja
}

// decide reads the stamp and the configure record and decides what this run
// redoes. It writes nothing, so plan prints exactly what build would do;
// warn receives what the user should know (a launcher not installed).
func (p *Prepared) decide(warn func(format string, args ...any)) (*decision, error) {
	return p.decideWith(warn, true)
}

// decidePurge is decide for the one thing a build asks before its tree is
// materialized: whether the pin changed (Decision.PurgeFrom), which no
// overlay file bears on; the rest of its decision is not to be acted on.
func (p *Prepared) decidePurge(warn func(format string, args ...any)) (*decision, error) {
	return p.decideWith(warn, false)
}

func (p *Prepared) decideWith(warn func(format string, args ...any), overlay bool) (*decision, error) {
	old, err := cache.ReadStamp(p.Layout.Stamp)
	if err != nil {
		return nil, err
	}
	cur, err := p.stampInputs(overlay)
	if err != nil {
		return nil, err
	}
	configured, err := cache.ReadConfigureRecord(p.Layout.Build)
	if err != nil {
		return nil, err
	}
	// The compiler launcher (ccache/sccache) is kept out of the stamp:
	// switching it on must not rebuild the tree, only reconfigure CMake,
	// which the configure record sees.
	lc, err := compilecache.FromEnv(p.Config.Project.Launcher, p.Opts.Env)
	if err != nil {
		return nil, err
	}
	// The base directory is the whole cache root: the tree and build dir
	// are under <root>/<backend>, but dependency sources (<root>/deps) are
	// compiled too, and an absolute path to them would make every
	// checkout's hash differ.
	base := p.Config.CacheRoot.Value
	ldefs, lenv, err := lc.Setup(p.Layout.Dir, base)
	if errors.Is(err, compilecache.ErrNotInstalled) {
		warn("%v; building without a launcher", err)
		lc = nil
		ldefs, lenv, err = lc.Setup(p.Layout.Dir, base)
	}
	if err != nil {
		return nil, err
	}
	d := cache.Decide(cache.BuildState{
		Old: old, Configured: configured, Cur: cur, Launcher: ldefs,
		BuildReady: exists(filepath.Join(p.Layout.Build, "build.ninja")),
	})
	return &decision{Decision: d, cur: cur, launcher: lc, ldefs: ldefs, lenv: lenv}, nil
}

// lockCache creates the backend's cache directory (refusing one that
// another project owns) and takes its lock, so concurrent builds and applies
// take turns, then removes what killed runs left there; call the returned
// func to release it.
func (p *Prepared) lockCache(ctx context.Context) (func() error, error) {
	if err := cache.Prepare(p.Layout, p.Config.Project.Dir); err != nil {
		return nil, err
	}
	pr := p.Opts.printer()
	unlock, err := cache.Lock(ctx, p.Layout.Lock, func(pid int) {
		pr.Info("waiting for another mlxbuild (pid %d) that holds %s", pid, p.Layout.Lock)
	})
	if err != nil {
		return nil, fmt.Errorf("locking the %s cache: %w", p.Backend, err)
	}
	if _, err := cache.RemoveStaleTemps(p.Layout); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// materialize makes sure the pristine source is at the pin and applies the
// overlay into the backend's tree.
func (p *Prepared) materialize(ctx context.Context) (overlays.Stats, *userFiles, error) {
	pristine, err := overlays.Pristine(ctx, p.Config.CacheRoot.Value, p.source())
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	// With layers this is the composed overlay in the cache.
	overlay, err := p.treeOverlay()
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	stats, m, err := overlays.Materialize(pristine, overlay, p.Layout.Tree, p.Layout.Manifest, p.Spec.Records)
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	return stats, &userFiles{manifest: m, tree: p.Layout.Tree, pristine: pristine, overlay: overlay}, nil
}

// userFiles maps the tree's files back to the user's: the overlay's copy or
// the pristine source's, through the tree's manifest.
type userFiles struct {
	manifest                *overlays.Manifest
	tree, pristine, overlay string
}

// where says, for the files of diagnostics, which file of the user's to
// edit ("" when none is a tree file): the tree copy is rewritten by the
// next run, so an error must name the overlay or pristine file.
func (u *userFiles) where(diags []cmake.Diagnostic) string {
	if u == nil || u.manifest == nil {
		return ""
	}
	var lines []string
	for _, d := range diags {
		file, origin, ok := u.manifest.SourceOf(u.tree, d.File, u.pristine, u.overlay)
		if !ok {
			continue
		}
		l := fmt.Sprintf("%s (%s)", fail.Pos{File: file, Line: d.Line, Col: d.Col}, origin)
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "edit " + strings.Join(lines, ", ") + "; the tree is a copy that the next build rewrites"
}

// restoredNote says, for a tree file materialize put back after a hand
// edit, where the edit belongs.
func (u *userFiles) restoredNote(rel string) string {
	file, origin, ok := u.manifest.SourceOf(u.tree, rel, u.pristine, u.overlay)
	switch {
	case !ok:
		return fmt.Sprintf("restored %s: it was edited in the tree, which mlxbuild rewrites", rel)
	case origin == overlays.FromOverlay:
		return fmt.Sprintf("restored %s: it was edited in the tree; edit %s instead", rel, file)
	case u.overlay != "":
		return fmt.Sprintf("restored %s: it was edited in the tree; to change it, copy %s into the overlay as %s", rel, file, filepath.Join(u.overlay, filepath.FromSlash(rel)))
	}
	return fmt.Sprintf("restored %s: it was edited in the tree; edit %s instead", rel, file)
}
