package targets

import (
	"context"
	"time"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/gpuidle"
)

// Gpu prepares the GPU for measuring.
type Gpu mg.Namespace

// Idle waits until the GPU and the compilers have been quiet. Quiet means no
// process used the GPU (KFD for ROCm, nvidia-smi for CUDA) and no compiler
// ran for -seconds (default 90), so a benchmark measures the change and not
// a neighbour. It gives up after -maxWait (or
// MLXBUILD_IDLE_MAX, default 30m), naming what still runs.
func (Gpu) Idle(ctx context.Context, seconds *int, maxWait *time.Duration) error {
	return runTarget(ctx, "gpu:idle", func(ctx context.Context, o flow.Options) error {
		quiet := gpuidle.DefaultQuiet
		if seconds != nil {
			quiet = time.Duration(*seconds) * time.Second
		}
		return gpuidle.Run(ctx, quiet, maxWait, o.Env, o.Stderr)
	})
}
