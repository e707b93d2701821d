package targets

import (
	"context"
	"fmt"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

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
	// Exit status 1 (fail.Interrupted), like any failure: mlxbuild's exit
	// statuses are 0 done, 1 failed, 2 bad configuration or usage, and a CI
	// runner that cancelled the job reads any non-zero the same.
	return &fail.Error{K: fail.Interrupted, Err: fmt.Errorf("%s interrupted%s; every program it started was stopped: run it again to continue", target, by)}
}
