package flow

import (
	"context"
	"fmt"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/ui"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// finishNoop ends a build that mlxbuild's own decision does not redo when
// Ninja's dry run (or the no-work record standing for it), started under
// the cache's lock, finds nothing to do either: then nothing was written since it started (the tree is as it
// was, nothing is configured), so its answer is the build's, and the
// no-op costs no second Ninja run and no supervisor. It reports false,
// having changed nothing, when Ninja has work: the real build then runs.
func (p *Prepared) finishNoop(ctx context.Context, dry *cmake.DryRun, d *decision, sum *Summary, step, warn func(string, ...any)) (bool, error) {
	t := time.Now()
	// The link plan reads only what earlier builds made, and the stamp is
	// this run's inputs: made and encoded while Ninja looks, they are off
	// the critical path. Made for nothing when Ninja has work, they are
	// made again after the build.
	plan, planErr := p.linkPlan()
	var files map[string][]byte
	if planErr == nil {
		files = linkFiles(plan)
	}
	stamp, stampErr := cache.EncodeStamp(p.Layout.Stamp, d.cur)
	tPlan := time.Since(t)
	t = time.Now()
	if !dry.NoWork() {
		return false, nil
	}
	if n := dry.Recorded(); n > 0 {
		step("build: Ninja has nothing to do (none of the %s it reads changed since ninja -n said so)", plural.Count(n, "file"))
	} else {
		step("build: Ninja has nothing to do (ninja -n)")
	}
	if err := dry.WriteLog(p.Layout.Log); err != nil {
		return true, err
	}
	p.completeCompileDB(ctx, warn)
	sum.Phases = append(sum.Phases, Phase{"build", time.Since(t)})
	t = time.Now()
	if planErr != nil {
		return true, planErr
	}
	if stampErr != nil {
		return true, stampErr
	}
	sum.Notes = plan.Notes
	if err := writeLinkFiles(p.Layout, files); err != nil {
		return true, err
	}
	if err := cache.WriteStampData(p.Layout.Stamp, stamp); err != nil {
		return true, err
	}
	sum.Phases = append(sum.Phases, Phase{"link plan", tPlan + time.Since(t)})
	// Last, after every write of this run: the next no-op may then skip
	// Ninja while nothing it reads changes.
	if err := dry.Remember(ctx); err != nil {
		warn("%v", err)
	}
	return true, nil
}

// heldLock is a backend cache's lock a run holds, and Ninja's dry run
// started under it for a build.
type heldLock struct {
	dir    string // the locked backend directory; "" when none is held
	layout cache.Layout
	unlock func() error
	dry    *cmake.DryRun // nil without one
}

// take locks l's directory, saying so when another mlxbuild holds it, and
// with dry starts Ninja's dry run on its build.
func (h *heldLock) take(ctx context.Context, l cache.Layout, backend string, pr *ui.Printer, dry bool) error {
	// The lock file is made, and written, in the backend's directory.
	if err := l.CheckFolders(); err != nil {
		return err
	}
	unlock, err := cache.Lock(ctx, l.Lock, func(pid int) {
		pr.Info("waiting for %s that holds %s", cache.Holder(pid), l.Lock)
	})
	if err != nil {
		return fmt.Errorf("locking the %s cache: %w", backend, err)
	}
	h.dir, h.layout, h.unlock = l.Dir, l, unlock
	if dry {
		h.dry = cmake.StartDryRun(ctx, l.Build, l.Lock)
	}
	return nil
}

// release stops the dry run, then gives the lock up.
func (h *heldLock) release() {
	h.dry.Stop()
	if h.unlock != nil {
		_ = h.unlock()
	}
	*h = heldLock{}
}
