package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Plan shows what build would do for a backend and why, changing nothing.
// With -json=true it prints the same facts as one JSON document for
// release scripts (docs/specs.md, "plan -json").
type Plan mg.Namespace

// Cpu shows the CPU build's resolved spec and what would be redone.
// -json=true prints it as one JSON document (docs/specs.md).
func (Plan) Cpu(ctx context.Context, json *bool) error { return plan(ctx, "cpu", json) }

// Rocm shows the ROCm build's resolved spec and what would be redone.
// -json=true prints it as one JSON document (docs/specs.md).
func (Plan) Rocm(ctx context.Context, json *bool) error { return plan(ctx, "rocm", json) }

// Cuda shows the CUDA build's resolved spec and what would be redone.
// -json=true prints it as one JSON document (docs/specs.md).
func (Plan) Cuda(ctx context.Context, json *bool) error { return plan(ctx, "cuda", json) }

// Metal shows the Metal build's resolved spec and what would be redone.
// -json=true prints it as one JSON document (docs/specs.md).
func (Plan) Metal(ctx context.Context, json *bool) error { return plan(ctx, "metal", json) }

func plan(ctx context.Context, backend string, json *bool) error {
	return runTarget(ctx, "plan:"+backend, func(ctx context.Context, o flow.Options) error {
		if json != nil && *json {
			return flow.PlanJSON(ctx, o, "plan:"+backend, backend)
		}
		return flow.Plan(ctx, o, "plan:"+backend, backend)
	})
}
