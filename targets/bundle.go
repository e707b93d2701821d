package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/shellwords"
)

// Bundle makes a relocatable release bundle (bin/, lib/, include/,
// manifest.json) from programs linked against a build, and checks one on
// a target machine (docs/bundle.md).
type Bundle mg.Namespace

// Cpu bundles programs linked against the CPU build into -out.
func (Bundle) Cpu(ctx context.Context, executables string, out *string) error {
	return bundleBackend(ctx, "cpu", executables, out)
}

// Rocm bundles programs linked against the ROCm build into -out.
func (Bundle) Rocm(ctx context.Context, executables string, out *string) error {
	return bundleBackend(ctx, "rocm", executables, out)
}

// Cuda bundles programs linked against the CUDA build into -out.
func (Bundle) Cuda(ctx context.Context, executables string, out *string) error {
	return bundleBackend(ctx, "cuda", executables, out)
}

// Metal bundles programs linked against the Metal build into -out.
func (Bundle) Metal(ctx context.Context, executables string, out *string) error {
	return bundleBackend(ctx, "metal", executables, out)
}

// Check says whether a bundle runs here: libraries, GPUs; exit 1 if not.
func (Bundle) Check(ctx context.Context, dir string) error {
	return runTarget(ctx, "bundle:check", func(ctx context.Context, o flow.Options) error {
		if err := flagsAfter("bundle:check", "bundle:check DIR", dir); err != nil {
			return err
		}
		return flow.BundleCheck(ctx, o, dir)
	})
}

// bundleBackend takes the programs as one argument (Mage has no variadic
// arguments), split as a shell splits words: "target/release/app
// 'build/my tool'".
func bundleBackend(ctx context.Context, backend, executables string, out *string) error {
	return runTarget(ctx, "bundle:"+backend, func(ctx context.Context, o flow.Options) error {
		name := "bundle:" + backend
		usage := name + " 'PROGRAM...' -out=DIR"
		if err := flagsAfter(name, usage, executables); err != nil {
			return err
		}
		if out == nil {
			return fail.Configf("%s: -out=DIR is missing: the folder the bundle is made in (mage %s)", name, usage)
		}
		cmds, err := shellwords.Commands(executables)
		if err != nil || len(cmds) != 1 {
			return fail.Configf("%s: %q is not a list of programs separated by blanks (quote a path with a blank in it): mage %s", name, executables, usage)
		}
		return flow.Bundle(ctx, o, name, backend, cmds[0], *out)
	}, flag("out", out))
}
