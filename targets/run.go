package targets

import (
	"context"
	"os"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// runTarget is the one way from a Mage target into its work, and every
// exported target is a single call to it (run_test.go holds each one to
// that, so a new target cannot skip it). It gives work:
//   - the context its work runs under: Mage's (cancelled by Ctrl-C, or by
//     its -t deadline), also cancelled by SIGTERM and SIGHUP, which Mage
//     leaves to their default of killing the process on the spot, so every
//     program the work started is stopped and nothing is left half-written;
//   - the options a parent magefile set with Use (WithDir, WithEnv,
//     WithOutput), with this process's environment and streams filled in
//     where it set none, so no target reads os.Getenv or writes os.Stdout
//     behind the parent's back.
//
// The error that comes back is worded once for a stopped run ("interrupted
// by SIGTERM" or "timed out", never one for the other) and turned into
// Mage's exit status by exit. name is the target as the user types it;
// flags are its optional string flags, refused when given empty
// (checkFlags) before any work starts.
func runTarget(ctx context.Context, name string, work func(ctx context.Context, o flow.Options) error, flags ...stringFlag) error {
	if err := checkFlags(name, flags); err != nil {
		return exit(err)
	}
	o := current()
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	sctx, stop := proc.WithSignals(ctx)
	defer stop()
	return exit(stoppedError(sctx, name, work(sctx, o)))
}
