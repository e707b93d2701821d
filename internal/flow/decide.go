package flow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
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
	old, err := cache.ReadStamp(p.Layout.Stamp)
	if err != nil {
		return nil, err
	}
	cur, err := p.stampInputs()
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
	ldefs, lenv, err := lc.Setup(p.Layout.Dir, p.Layout.Dir)
	if errors.Is(err, compilecache.ErrNotInstalled) {
		warn("%v; building without a launcher", err)
		lc = nil
		ldefs, lenv, err = lc.Setup(p.Layout.Dir, p.Layout.Dir)
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
func (p *Prepared) materialize(ctx context.Context) (overlays.Stats, error) {
	pristine, err := overlays.Pristine(ctx, p.Config.CacheRoot.Value, p.source())
	if err != nil {
		return overlays.Stats{}, err
	}
	overlay, err := p.treeOverlay()
	if err != nil {
		return overlays.Stats{}, err
	}
	stats, _, err := overlays.Materialize(pristine, overlay, p.Layout.Tree, p.Layout.Manifest, p.Spec.Records)
	return stats, err
}
