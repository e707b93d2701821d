package flow

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
)

// checkOnlyForCargo is build:cargo for editors, lint jobs and docs.rs
// (configs.CheckOnly: MLXBUILD_CHECK_ONLY=1 or DOCS_RS): the tree is
// materialized under the backend's lock, as a build would, and the plan's
// compile part goes to stdout (linkplan's CargoCheckOnly: include
// directories, defines, the C++ standard, rustc-env, rerun lines) with no
// link line. Nothing else runs: no CMake, no Ninja, no compiler, no probe
// of the tools' versions; no stamp, configure record or out/ file is
// written, so the next real build finds exactly what it would have found
// without this run and builds. The standard is the configured build's
// where the cache holds one (an editor reusing the user's build gets the
// standard MLX compiled with), else the spec's.
//
// The architectures only fill the rustc-env value: a machine with no GPU
// and none named (a laptop, docs.rs) gets a warning and an empty list
// rather than an error, since nothing is compiled for them.
func checkOnlyForCargo(ctx context.Context, o Options, why string) (*Summary, error) {
	start := time.Now()
	r, err := open(ctx, o, request{target: CargoTarget, lock: true})
	defer r.close()
	if err != nil {
		return nil, err
	}
	p, pr := r.Prepared, r.Opts.printer()
	p.compileOnly = true
	// The toolchain's root only, from files: its full discovery runs its
	// programs (hipconfig, clang++, nvcc), which a check-only run must not.
	if t := p.Spec.Toolchain; t != nil {
		info, err := backends.LocateRoot(t.Name, t.Env, append([]string{t.Default}, t.Fallbacks...), p.Opts.Env)
		if err != nil {
			return nil, err
		}
		p.Toolchain = info
	}
	if err := p.resolveArch(ctx); err != nil {
		if p.Spec.Architectures == nil || ctx.Err() != nil {
			return nil, err
		}
		p.Arch, p.archList = &arch.Result{}, ""
		pr.Warn("%s; the check-only run compiles nothing, so it goes on with no architectures in %s", oneLine(err.Error()), p.Spec.Architectures.RustcEnv)
	}
	for _, w := range p.Warnings {
		pr.Warn("%s", w)
	}
	stats, files, err := p.materialize(ctx)
	if err != nil {
		return nil, err
	}
	for _, rel := range stats.HandEdited {
		pr.Warn("%s", files.restoredNote(rel))
	}
	plan, err := p.planLink(true)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprint(r.Opts.Stdout, plan.CargoCheckOnly()); err != nil {
		return nil, err
	}
	sum := &Summary{Backend: p.Backend, Out: p.Layout.Out, LogPath: p.Layout.Log, Materialize: stats, Notes: plan.Notes}
	if p.Arch != nil {
		sum.Arch, sum.ArchSource = p.archList, p.Arch.Source
	}
	sum.Phases = append(sum.Phases, Phase{"check only", time.Since(start)})
	pr.Done("%s: check only (%s): tree %s ready, compile flags published; nothing configured, built or linked (%.2f s)",
		p.Backend, why, p.Layout.Tree, time.Since(start).Seconds())
	if c := plan.Compile; c != nil && c.Std != "" {
		// The spec's standard stands in until a build's CMake says its
		// own: say which one the bridge got.
		pr.Info("cxx_std %s: %s", c.Std, c.StdFrom)
	}
	return sum, nil
}

// oneLine joins a message's lines, for a warning Cargo shows on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
