package targets

import (
	"context"
	"errors"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// Doctor checks every prerequisite of every backend on this machine (tools,
// toolchains, versions, libraries) and says what to install or set for each
// gap. It exits 1 when a tool every build needs is missing.
func Doctor(ctx context.Context) error {
	o := current()
	ctx, finish := stoppable(ctx, "doctor")
	fs, _ := flow.Doctor(ctx, o)
	if err := finish(ctx.Err()); err != nil {
		return exit(err)
	}
	pr := ui.New(stderrOf(o), o.Env)
	basicMissing := false
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
		if f.OK {
			pr.OK("%s: %s", f.What, f.Detail)
			continue
		}
		pr.Bad("%s: %s", f.What, f.Detail)
		if f.Fix != "" {
			pr.Fix("%s", f.Fix)
		}
		if f.Backend == "" {
			basicMissing = true
		}
	}
	if basicMissing {
		return exit(errors.New("doctor: a tool every build needs is missing; install what is listed above (go run mage.go setup does it on Debian)"))
	}
	return nil
}

// Setup installs, on Debian or Ubuntu, the packages the tests and the
// bundled example need (only those missing); elsewhere it prints them.
func Setup(ctx context.Context) error {
	ctx, finish := stoppable(ctx, "setup")
	return exit(finish(flow.Setup(ctx, current())))
}
