package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/plural"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// Doctor checks this machine for the backend asked for (cpu when none).
// -backend=rocm, MLXBUILD_BACKENDS or Cargo's features ask; each gap says
// what to install or set, and a FAIL line exits 1. Every other backend
// gets one line: whether this machine can build it.
func Doctor(ctx context.Context, backend *string) error {
	return runTarget(ctx, "doctor", func(ctx context.Context, o flow.Options) error {
		fs, _, err := flow.Doctor(ctx, o, flagValue(backend))
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return reportDoctor(o, fs)
	}, flag("backend", backend))
}

// notAsked heads the one-line verdicts of the backends not asked for.
const notAsked = "other backends (not asked for; doctor -backend=NAME checks one in full)"

// reportDoctor prints doctor's findings by backend and fails when one is
// missing.
func reportDoctor(o flow.Options, fs []flow.Finding) error {
	pr := ui.New(o.Stderr, o.Env)
	failed, basicMissing := 0, false
	last := "-"
	for _, f := range fs {
		group := f.Backend
		if f.Verdict {
			group = notAsked
		}
		if group != last {
			if group == "" {
				pr.Step("every backend")
			} else {
				pr.Step("%s", group)
			}
			last = group
		}
		switch {
		case f.OK:
			pr.OK("%s: %s", f.What, f.Detail)
			continue
		case f.Verdict:
			pr.Skip("%s: %s", f.What, f.Detail)
			continue
		}
		pr.Bad("%s: %s", f.What, f.Detail)
		if f.Fix != "" {
			pr.Fix("%s", f.Fix)
		}
		failed++
		basicMissing = basicMissing || f.Backend == ""
	}
	switch {
	case basicMissing:
		return errors.New("doctor: a tool every build needs is missing; install what is listed above (go run mage.go setup does it on Debian)")
	case failed > 0:
		return fmt.Errorf("doctor: %s above; each says what to install or set", plural.Count(failed, "problem"))
	}
	return nil
}

// Setup installs the Debian packages the tests and example need. Only
// missing ones are installed, on Debian or Ubuntu; elsewhere it prints
// them.
func Setup(ctx context.Context) error {
	return runTarget(ctx, "setup", func(ctx context.Context, o flow.Options) error {
		return flow.Setup(ctx, o)
	})
}
