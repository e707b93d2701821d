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
	return runTarget(ctx, "overlay:apply", func(ctx context.Context, o flow.Options) error {
		_, err := flow.Apply(ctx, o, backend)
		return err
	})
}
