package targets

import (
	"context"
	"errors"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Verify is the CI gate: it builds the backend if needed and checks overlay
// records and integrity, kernel source rules, backend isolation and linking.
// MLXBUILD_REPORT=junit:<path> or json:<path> also writes a machine report.
type Verify mg.Namespace

// Cpu verifies the CPU build.
func (Verify) Cpu(ctx context.Context) error { return verifyBackend(ctx, "cpu") }

// Rocm verifies the ROCm build and overlay; no GPU needed.
func (Verify) Rocm(ctx context.Context) error { return verifyBackend(ctx, "rocm") }

// Cuda verifies the CUDA build and overlay; no GPU needed.
func (Verify) Cuda(ctx context.Context) error { return verifyBackend(ctx, "cuda") }

// Metal verifies the Metal build and overlay.
func (Verify) Metal(ctx context.Context) error { return verifyBackend(ctx, "metal") }

func verifyBackend(ctx context.Context, backend string) error {
	return runTarget(ctx, "verify:"+backend, func(ctx context.Context, o flow.Options) error {
		r, err := flow.Verify(ctx, o, backend)
		if err != nil {
			return err
		}
		if r.Failed {
			return errors.New("verify:" + backend + " failed: fix the findings above (each names the file and line and what to do)")
		}
		return nil
	})
}
