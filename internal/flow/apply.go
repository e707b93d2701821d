package flow

import (
	"context"
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// Apply materializes one backend's tree (pristine + overlay) and nothing
// else: no toolchain, no architectures, no CMake. It takes the backend's
// lock, so concurrent applies and builds take turns.
func Apply(ctx context.Context, o Options, backend string) (overlays.Stats, error) {
	r, err := open(ctx, o, request{target: "overlay:apply", backend: backend, exact: true, lock: true})
	defer r.close()
	if err != nil {
		return overlays.Stats{}, err
	}
	p, o := r.Prepared, r.Opts
	stats, files, err := p.materialize(ctx)
	if err != nil {
		return overlays.Stats{}, err
	}
	for _, rel := range stats.HandEdited {
		o.printer().Warn("%s", files.restoredNote(rel))
	}
	fmt.Fprintf(o.Stdout, "%s tree %s: %d written, %d restored, %d removed, %d touched, %d unchanged\n",
		backend, p.Layout.Tree, stats.Written, stats.Restored, stats.Removed, stats.Touched, stats.Unchanged)
	return stats, nil
}

// Clean removes what mlxbuild made in one backend's cache directory, or
// with "" in every backend's and the shared sources, and says what it left
// because it is not mlxbuild's. The verified dependency store stays unless
// withDeps: deps:fetch refills it only from the network or a mirror.
func Clean(o Options, backend string, withDeps bool) error {
	o = o.withDefaults()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return err
	}
	backends := backends.Names()
	if backend != "" {
		if withDeps {
			return fail.Configf("-deps=true cleans the dependency store, which every backend shares: leave out -backend=%s to clean the whole cache with it", backend)
		}
		if _, err := configs.Builtin(backend); err != nil {
			return err
		}
		backends = []string{backend}
	}
	res, err := cache.Clean(cfg.CacheRoot.Value, backends, cache.CleanScope{Shared: backend == "", Deps: withDeps})
	if err != nil {
		return err
	}
	what := "every backend"
	if backend != "" {
		what = backend
	}
	kept := ""
	if len(res.Kept) > 0 {
		kept = " (kept the verified dependencies in " + strings.Join(res.Kept, ", ") + "; -deps=true removes them)"
	}
	fmt.Fprintf(o.Stdout, "cleaned %s under %s%s\n", what, cfg.CacheRoot.Value, kept)
	pr := o.printer()
	for _, l := range res.Left {
		pr.Warn("left %s: mlxbuild did not make it; remove it by hand if it is not needed", l)
	}
	return nil
}
