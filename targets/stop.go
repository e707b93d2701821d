package targets

import (
	"context"
	"fmt"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// stoppable gives a target the context its work runs under: Mage's context
// (cancelled by Ctrl-C, or by its -t deadline), also cancelled by SIGTERM
// and SIGHUP, which Mage leaves to their default of killing the process on
// the spot. finish releases the signals and words the error of a stopped
// run once: "interrupted by SIGTERM" or "timed out", never one for the other.
func stoppable(ctx context.Context, target string) (context.Context, func(error) error) {
	sctx, stop := proc.WithSignals(ctx)
	return sctx, func(err error) error {
		defer stop()
		return stoppedError(sctx, target, err)
	}
}

// stoppedError rewords err when ctx was stopped; otherwise err stays.
func stoppedError(ctx context.Context, target string, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	timedOut, in := proc.StopCause(ctx)
	if timedOut {
		d := ""
		if dl, ok := ctx.Deadline(); ok {
			d = " (the deadline was " + dl.Format(time.TimeOnly) + ")"
		}
		return fmt.Errorf("%s timed out%s; every program it started was stopped: %w", target, d, err)
	}
	by := ""
	if in != nil {
		by = " by " + proc.SignalName(in.Signal)
	}
	// Exit status 1 (fail.Interrupted), like any failure: DESIGN.md's model
	// has 0, 1 and 2, and a CI runner that cancelled the job reads any
	// non-zero the same.
	return &fail.Error{K: fail.Interrupted, Err: fmt.Errorf("%s interrupted%s; every program it started was stopped: run it again to continue", target, by)}
}
