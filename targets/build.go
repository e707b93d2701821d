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
	return runTarget(ctx, "build:"+backend, func(ctx context.Context, o flow.Options) error {
		_, err := flow.Build(ctx, o, backend)
		return err
	})
}

// Cargo builds the backend the Cargo features select (CARGO_FEATURE_*). It
// prints cargo.txt for Cargo: run it from a build script. With
// MLXBUILD_CHECK_ONLY=1 (editors, lint jobs) or DOCS_RS set it only
// materializes the tree and prints the compile flags, no link line.
func (Build) Cargo(ctx context.Context) error {
	return runTarget(ctx, "build:cargo", func(ctx context.Context, o flow.Options) error {
		_, err := flow.BuildForCargo(ctx, o)
		return err
	})
}
