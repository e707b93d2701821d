package targets

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// Arch resolves the GPU targets a build compiles for, and checks built files
// against this machine's GPUs.
type Arch mg.Namespace

// Rocm prints the gfx targets a ROCm build would use. They are ";"-joined,
// alone on the last line of stdout; where they came from, their wave sizes
// and any warnings go to stderr. The spec's variable
// (MLX_ROCM_ARCHITECTURES) overrides the probes.
func (Arch) Rocm(ctx context.Context) error {
	return runTarget(ctx, "arch:rocm", func(ctx context.Context, o flow.Options) error {
		r, err := flow.ResolveArch(ctx, o, arch.ROCm)
		return printResolved(o.Stdout, o.Stderr, arch.ROCm, r, err)
	})
}

// Cuda prints the architectures a CUDA build would use. They are
// ";"-joined, alone on the last line of stdout; provenance and warnings go
// to stderr. The spec's variable (MLX_CUDA_ARCHITECTURES) overrides
// nvidia-smi.
func (Arch) Cuda(ctx context.Context) error {
	return runTarget(ctx, "arch:cuda", func(ctx context.Context, o flow.Options) error {
		r, err := flow.ResolveArch(ctx, o, arch.CUDA)
		return printResolved(o.Stdout, o.Stderr, arch.CUDA, r, err)
	})
}

// Check compares the GPU code in a built file with this machine's GPUs. It
// lists the targets inside a binary, object or library, exits 1 when a GPU
// has no code in the file and says what to rebuild with.
func (Arch) Check(ctx context.Context, file string) error {
	return runTarget(ctx, "arch:check", func(ctx context.Context, o flow.Options) error {
		rep, err := arch.Check(ctx, file, arch.Options{Env: o.Env})
		// Notes and lines name the file and what it holds: escaped, as
		// everything printed that came from outside.
		for _, n := range rep.Binary.Notes {
			fmt.Fprintf(o.Stderr, "arch: note: %s\n", ui.Escape(n))
		}
		for _, r := range []*arch.Result{rep.ROCm, rep.CUDA} {
			if r != nil {
				printWarnings(o.Stderr, r.Warnings)
			}
		}
		if err != nil {
			return err
		}
		for _, l := range rep.Lines {
			fmt.Fprintln(o.Stdout, ui.Escape(l))
		}
		return nil
	})
}

func printResolved(stdout, stderr io.Writer, backend string, r arch.Result, err error) error {
	var re *arch.ResolveError
	if errors.As(err, &re) {
		printWarnings(stderr, re.Warnings)
	} else {
		printWarnings(stderr, r.Warnings)
	}
	if err != nil {
		return err
	}
	if note := r.DefaultNote(arch.WouldBuild); note != "" {
		printWarnings(stderr, []string{note})
	}
	fmt.Fprintf(stderr, "arch: %s targets from %s\n", backend, r.Source)
	if backend == arch.ROCm {
		for _, t := range r.Targets {
			if info, ok := arch.Lookup(t); ok {
				fmt.Fprintf(stderr, "arch:   %-16s %s, wave%d\n", t, info.Family, info.WaveSize)
			} else {
				fmt.Fprintf(stderr, "arch:   %-16s unknown target, wave size unknown\n", t)
			}
		}
	}
	fmt.Fprintln(stdout, arch.Join(r.Targets))
	return nil
}

func printWarnings(w io.Writer, warnings []string) {
	for _, m := range warnings {
		fmt.Fprintf(w, "arch: warning: %s\n", m)
	}
}
