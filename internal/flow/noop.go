package flow

import (
	"context"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// finishNoop ends a build that mlxbuild's own decision does not redo when
// the no-work record, checked beside materialize under the cache's lock,
// says Ninja has nothing to do either: then nothing was written since the
// check began (the tree is as it was, nothing is configured), so its
// answer is the build's, and the no-op costs no Ninja run and no
// supervisor. It reports false, having changed nothing, when the record
// does not answer: the real build then runs, and makes the record when
// Ninja says it had no work (rememberNoWork).
func (p *Prepared) finishNoop(ctx context.Context, check *cmake.NoWorkCheck, d *decision, sum *Summary, step, warn func(string, ...any)) (bool, error) {
	n := check.Recorded()
	if n == 0 {
		return false, nil
	}
	t := time.Now()
	step("build: Ninja has nothing to do (none of the %s it reads changed since ninja -n said so)", plural.Count(n, "file"))
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
	return true, nil
}
