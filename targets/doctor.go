package targets

import (
	"context"
	"errors"
	"fmt"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/ui"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Doctor checks this machine's tools for every backend. It says what to
// install or set for each gap, and exits 1 when it prints a FAIL line.
func Doctor(ctx context.Context) error {
	return runTarget(ctx, "doctor", func(ctx context.Context, o flow.Options) error {
		fs, _ := flow.Doctor(ctx, o)
		if err := ctx.Err(); err != nil {
			return err
		}
		return reportDoctor(o, fs)
	})
}

// reportDoctor prints doctor's findings by backend and fails when one is
// missing.
func reportDoctor(o flow.Options, fs []flow.Finding) error {
	pr := ui.New(o.Stderr, o.Env)
	failed, basicMissing := 0, false
	last := "-"
	for _, f := range fs {
		if f.Backend != last {
			if f.Backend == "" {
				pr.Step("every backend")
			} else {
				pr.Step("%s", f.Backend)
			}
			last = f.Backend
		}
		switch {
		case f.OK:
			pr.OK("%s: %s", f.What, f.Detail)
			continue
		case f.Unused:
			pr.Skip("%s: %s (the project does not use %s)", f.What, f.Detail, f.Backend)
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
