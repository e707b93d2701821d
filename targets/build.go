package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Build builds MLX with one backend and writes the link plan.
type Build mg.Namespace

// Cpu builds MLX for the CPU only.
func (Build) Cpu(ctx context.Context) error { return build(ctx, "cpu") }

// Rocm builds MLX with the ROCm (HIP) backend for AMD GPUs.
func (Build) Rocm(ctx context.Context) error { return build(ctx, "rocm") }

// Cuda builds MLX with the CUDA backend for NVIDIA GPUs.
func (Build) Cuda(ctx context.Context) error { return build(ctx, "cuda") }

// Metal builds MLX with the Metal backend (macOS).
func (Build) Metal(ctx context.Context) error { return build(ctx, "metal") }

func build(ctx context.Context, backend string) error {
	ctx, finish := stoppable(ctx, "build:"+backend)
	_, err := flow.Build(ctx, current(), "build:"+backend, backend)
	return exit(finish(err))
}

// Cargo builds the backend the Cargo features select (CARGO_FEATURE_*). It
// prints cargo.txt for Cargo: run it from a build script.
func (Build) Cargo(ctx context.Context) error {
	_, err := flow.BuildForCargo(ctx, current())
	return exit(err)
}
