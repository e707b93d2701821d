package flow

import (
	"context"
	"fmt"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// Apply materializes one backend's tree (pristine + overlay) and nothing
// else: no toolchain, no architectures, no CMake. It takes the backend's
// lock, so concurrent applies and builds take turns.
func Apply(ctx context.Context, o Options, backend string) (overlays.Stats, error) {
	o = o.withDefaults()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return overlays.Stats{}, err
	}
	spec, err := cfg.Spec(backend)
	if err != nil {
		return overlays.Stats{}, err
	}
	p := &Prepared{Opts: o, Config: cfg, Backend: backend, Spec: spec, Layout: cache.For(cfg.CacheRoot.Value, backend)}
	if err := cache.Prepare(p.Layout); err != nil {
		return overlays.Stats{}, err
	}
	pr := o.printer()
	unlock, err := cache.Lock(ctx, p.Layout.Lock, func(pid int) {
		pr.Info("waiting for another mlxbuild (pid %d) that holds %s", pid, p.Layout.Lock)
	})
	if err != nil {
		return overlays.Stats{}, fmt.Errorf("locking the %s cache: %w", backend, err)
	}
	defer unlock()
	pristine, err := overlays.Pristine(ctx, cfg.CacheRoot.Value, p.source())
	if err != nil {
		return overlays.Stats{}, err
	}
	overlay, err := p.treeOverlay()
	if err != nil {
		return overlays.Stats{}, err
	}
	stats, _, err := overlays.Materialize(pristine, overlay, p.Layout.Tree, p.Layout.Manifest, spec.Records)
	if err != nil {
		return overlays.Stats{}, err
	}
	fmt.Fprintf(o.Stdout, "%s tree %s: %d written, %d restored, %d removed, %d touched, %d unchanged\n",
		backend, p.Layout.Tree, stats.Written, stats.Restored, stats.Removed, stats.Touched, stats.Unchanged)
	return stats, nil
}

// Clean removes one backend's cache directory, or every backend's with "".
func Clean(o Options, backend string) error {
	o = o.withDefaults()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return err
	}
	if backend != "" {
		if _, err := configs.Builtin(backend); err != nil {
			return err
		}
	}
	if err := cache.Clean(cfg.CacheRoot.Value, backend); err != nil {
		return err
	}
	what := "every backend"
	if backend != "" {
		what = backend
	}
	fmt.Fprintf(o.Stdout, "cleaned %s under %s\n", what, cfg.CacheRoot.Value)
	return nil
}
