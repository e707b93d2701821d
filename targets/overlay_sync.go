package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"
)

// Sync moves an overlay to a commit of its fork, keeping local changes. The
// overlay is that of the backend with a fork: entry (-backend=NAME picks one
// when several have a fork); forkCommit is an id or a branch, and the fork's
// changes are merged with the local ones. On a
// conflict nothing changes and the conflicted files are listed with their
// staged copies (exit 1).
func (Overlay) Sync(ctx context.Context, forkCommit string, backend *string) error {
	return runTarget(ctx, "overlay:sync", func(ctx context.Context, o flow.Options) error {
		if err := flagsAfter("overlay:sync", "overlay:sync FORK_COMMIT [-backend=NAME]", forkCommit); err != nil {
			return err
		}
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		name, so, err := forksync.SyncOptionsFor(cfg, flagValue(backend), forkCommit)
		if err != nil {
			return err
		}
		res, err := forksync.Sync(ctx, so)
		var ce *forksync.ConflictError
		if err != nil && !errors.As(err, &ce) {
			return err
		}
		fmt.Fprintf(o.Stdout, "%s overlay %s\n", name, so.Overlay)
		res.Render(o.Stdout)
		return err
	}, flag("backend", backend))
}

// Drift shows upstream changes an overlay would silently revert. For each
// core file of every overlay (or -backend's) it shows the upstream hunks
// between the recorded pin and -candidate (default: upstream's current HEAD)
// that the overlay does not contain.
func (Overlay) Drift(ctx context.Context, candidate *string, backend *string) error {
	return runTarget(ctx, "overlay:drift", func(ctx context.Context, o flow.Options) error {
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		names, err := overlayBackends(cfg, flagValue(backend))
		if err != nil {
			return err
		}
		for _, n := range names {
			do, notes, err := forksync.DriftOptionsFor(cfg, n, flagValue(candidate))
			if err != nil {
				return err
			}
			rep, err := forksync.Drift(ctx, do)
			if err != nil {
				return err
			}
			rep.Notes = append(notes, rep.Notes...)
			fmt.Fprintf(o.Stdout, "== %s\n", n)
			rep.Render(o.Stdout)
		}
		return nil
	}, flag("candidate", candidate), flag("backend", backend))
}

// ApiDrift builds the overlay on MLX at candidate and lists what breaks. The
// build runs in a scratch tree under the cache; compile errors and undefined
// symbols are listed against a build at source.pin (exit 1 when the overlay
// breaks). The backend is the
// one with a fork: entry, or -backend.
func (Overlay) ApiDrift(ctx context.Context, candidate string, backend *string) error {
	return runTarget(ctx, "overlay:apiDrift", func(ctx context.Context, o flow.Options) error {
		if err := flagsAfter("overlay:apiDrift", "overlay:apiDrift CANDIDATE [-backend=NAME]", candidate); err != nil {
			return err
		}
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		name := flagValue(backend)
		if name == "" {
			names, err := overlayBackends(cfg, "")
			if err != nil {
				return err
			}
			if name, _, err = forksync.ForkBackend(cfg, ""); err != nil {
				if len(names) != 1 {
					return fail.Configf("pick the backend to build with -backend=NAME (backends with an overlay: %v)", names)
				}
				name = names[0]
			}
		}
		rep, err := flow.APIDrift(ctx, flow.APIDriftOptions{Job: o, Backend: name, Candidate: candidate, Progress: o.Stderr})
		if err != nil {
			return err
		}
		rep.Render(o.Stdout)
		return rep.Err()
	}, flag("backend", backend))
}

// Records lists the LOCAL_FIXES.md items of every overlay, with status. The
// status is retarget-only, to be proposed, or proposed with the pull
// request's link; -backend picks one overlay.
func (Overlay) Records(ctx context.Context, backend *string) error {
	return runTarget(ctx, "overlay:records", func(ctx context.Context, o flow.Options) error {
		cfg, err := configs.LoadConfig(o.Dir, o.Env)
		if err != nil {
			return err
		}
		reps, err := forksync.Records(cfg, flagValue(backend))
		if err != nil {
			return err
		}
		for _, r := range reps {
			r.Render(o.Stdout)
		}
		return nil
	}, flag("backend", backend))
}

// overlayBackends lists the backends with an overlay, or checks the one
// asked for.
func overlayBackends(cfg *configs.Config, name string) ([]string, error) {
	if name != "" {
		if cfg.Overlay(name) == "" {
			return nil, fail.Configf("backends.%s in %s has no overlay:", name, cfg.Project.File)
		}
		return []string{name}, nil
	}
	var out []string
	for _, n := range configs.Names {
		if cfg.Overlay(n) != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, fail.Configf("no backend in %s has an overlay:", cfg.Project.File)
	}
	return out, nil
}
