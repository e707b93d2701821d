package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Overlay materializes, syncs and inspects backend overlays.
type Overlay mg.Namespace

// Apply materializes one backend's tree (pristine + overlay). It prints the
// counts: written, restored, removed, unchanged.
func (Overlay) Apply(ctx context.Context, backend string) error {
	ctx, finish := stoppable(ctx, "overlay:apply")
	_, err := flow.Apply(ctx, current(), backend)
	return exit(finish(err))
}
