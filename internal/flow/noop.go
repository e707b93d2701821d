package flow

import (
	"context"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// finishNoop ends a build that mlxbuild's own decision does not redo when
// Ninja has nothing to do either: the no-work record, checked since the
// lock was taken, says so, or else `ninja -n`, asked now. Nothing was
// written since the check began (the tree is as it was, nothing is
// configured), so its answer is the build's, and the no-op costs no real
// Ninja run and no supervisor. It reports false, having changed nothing,
// when Ninja has work: the real build then runs.
func (p *Prepared) finishNoop(ctx context.Context, check *cmake.NoWorkCheck, d *decision, sum *Summary, step, warn func(string, ...any)) (bool, error) {
	t := time.Now()
	if !check.NoWork(ctx) {
		return false, nil
	}
	if n := check.Recorded(); n > 0 {
		step("build: Ninja has nothing to do (none of the %s it reads changed since ninja -n said so)", plural.Count(n, "file"))
	} else {
		step("build: Ninja has nothing to do (ninja -n)")
	}
	if err := check.WriteLog(p.Layout.Log); err != nil {
		return true, err
	}
	p.completeCompileDB(ctx, warn)
	sum.Phases = append(sum.Phases, Phase{"build", time.Since(t)})
	t = time.Now()
	plan, err := p.linkPlan()
	if err != nil {
		return true, err
	}
	sum.Notes = plan.Notes
	if err := writeLinkPlan(p.Layout, plan); err != nil {
		return true, err
	}
	if err := cache.WriteStamp(p.Layout.Stamp, d.cur); err != nil {
		return true, err
	}
	sum.Phases = append(sum.Phases, Phase{"link plan", time.Since(t)})
	// Last, after every write of this run: the next no-op may then skip
	// Ninja while nothing it reads changes.
	if err := check.Remember(ctx, p.Layout.Lock); err != nil {
		warn("%v", err)
	}
	return true, nil
}
