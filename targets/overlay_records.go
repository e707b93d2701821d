package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// CheckRecords holds an overlay against its fork, pin and records. It
// takes the backend with a fork: entry (-backend=NAME picks one) and
// compares, as the reference's overlay tool does: every backend
// file that differs from the fork is named in LOCAL_FIXES.md, every core
// file's residual beyond "pin + fork delta" is in CORE_RESIDUAL.diff with a
// note, README counts match. -write=true rewrites CORE_RESIDUAL.diff
// (notes kept). Exit 1 when something disagrees.
func (Overlay) CheckRecords(ctx context.Context, backend *string, write *bool) error {
	return runTarget(ctx, "overlay:checkRecords", func(ctx context.Context, o flow.Options) error {
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		name, co, err := forksync.CheckOptionsFor(cfg, flagValue(backend), write != nil && *write)
		if err != nil {
			return err
		}
		rep, err := forksync.CheckRecords(ctx, co)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Stdout, "%s overlay %s\n", name, co.Overlay)
		rep.Render(o.Stdout)
		if n := len(rep.Findings); n > 0 {
			return fmt.Errorf("the %s overlay's records disagree with it in %s; fix each as it says", name, plural.Count(n, "place"))
		}
		return nil
	}, flag("backend", backend))
}

// Retarget moves an overlay's core files onto newPin by three-way merge. The
// overlay is -backend=NAME's, else the one with a fork:, else the only one;
// each file goes from the pin UPSTREAM records to newPin, and UPSTREAM is
// updated. On a conflict the
// overlay is untouched; the merges, markers included, are in a staging copy
// beside it (exit 1).
func (Overlay) Retarget(ctx context.Context, newPin string, backend *string) error {
	return runTarget(ctx, "overlay:retarget", func(ctx context.Context, o flow.Options) error {
		if err := flagsAfter("overlay:retarget", "overlay:retarget NEW_PIN [-backend=NAME]", newPin); err != nil {
			return err
		}
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		name, ro, err := forksync.RetargetOptionsFor(cfg, flagValue(backend), newPin)
		if err != nil {
			return err
		}
		res, err := forksync.Retarget(ctx, ro)
		var ce *forksync.RetargetConflictError
		if err != nil && !errors.As(err, &ce) {
			return err
		}
		fmt.Fprintf(o.Stdout, "%s overlay %s\n", name, ro.Overlay)
		res.Render(o.Stdout)
		return err
	}, flag("backend", backend))
}
