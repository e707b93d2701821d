package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Plan shows what build would do for a backend and why, changing nothing.
type Plan mg.Namespace

// Cpu shows the CPU build's resolved spec and what would be redone.
func (Plan) Cpu(ctx context.Context) error { return plan(ctx, "cpu") }

// Rocm shows the ROCm build's resolved spec and what would be redone.
func (Plan) Rocm(ctx context.Context) error { return plan(ctx, "rocm") }

// Cuda shows the CUDA build's resolved spec and what would be redone.
func (Plan) Cuda(ctx context.Context) error { return plan(ctx, "cuda") }

// Metal shows the Metal build's resolved spec and what would be redone.
func (Plan) Metal(ctx context.Context) error { return plan(ctx, "metal") }

func plan(ctx context.Context, backend string) error {
	return runTarget(ctx, "plan:"+backend, func(ctx context.Context, o flow.Options) error {
		return flow.Plan(ctx, o, "plan:"+backend, backend)
	})
}
