package gpuidle

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Checker reports what keeps the machine busy right now; *Probe is one.
type Checker interface {
	Busy(ctx context.Context) ([]Proc, error)
}

// Clock is time as Wait sees it, so tests can run a 90-second wait in
// microseconds.
type Clock interface {
	Now() time.Time
	// Sleep returns after d, or with ctx's error when ctx ends first.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Defaults for Options' zero fields.
const (
	DefaultQuiet = 90 * time.Second
	DefaultMax   = 30 * time.Minute
	DefaultPoll  = time.Second
)

// Options says how long to wait and how to watch.
type Options struct {
	// Quiet is how long nothing may run before the machine counts as idle;
	// 0 means nothing runs at one check.
	Quiet time.Duration
	// Max bounds the whole wait; it must be at least Quiet.
	Max time.Duration
	// Poll is the time between checks. A process that starts and ends
	// between two checks is not seen; a benchmark or a build lasts longer.
	Poll  time.Duration
	Clock Clock     // nil: the real clock
	Log   io.Writer // progress lines; nil: none
}

// ConfigError is an Options value that cannot work; it is the user's to fix.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// Kind is configuration: a variable or argument the user must change.
func (e *ConfigError) Kind() fail.Kind { return fail.Config }

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Quiet < 0:
		return &ConfigError{fmt.Sprintf("idle time %s is negative; give the seconds nothing may run, e.g. 90", o.Quiet)}
	case o.Poll <= 0:
		return &ConfigError{fmt.Sprintf("poll interval %s must be positive", o.Poll)}
	case o.Max < o.Quiet:
		return &ConfigError{fmt.Sprintf("maximum wait %s is shorter than the idle time %s, so the wait could never succeed; raise -maxWait (or MLXBUILD_IDLE_MAX) or lower -seconds", o.Max, o.Quiet)}
	}
	return nil
}

// Result describes a successful wait.
type Result struct {
	Waited time.Duration // from the first check to the end
	Checks int
}

// TimeoutError is a wait that reached Options.Max.
type TimeoutError struct {
	Quiet, Max time.Duration
	// Running is what the last check found; when it is empty the machine
	// went quiet too late, and LastBusy is what ran last, Since ago.
	Running  []Proc
	LastBusy []Proc
	Since    time.Duration
}

func (e *TimeoutError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "waiting for an idle GPU: gave up after %s: the machine was never quiet (no GPU user, no compiler) for %s in a row; ", e.Max, e.Quiet)
	if len(e.Running) > 0 {
		fmt.Fprintf(&b, "still running: %s; ", join(e.Running))
	} else {
		fmt.Fprintf(&b, "last busy %s ago: %s; ", e.Since.Round(time.Second), join(e.LastBusy))
	}
	b.WriteString("stop or wait for those processes, or allow a longer wait with -maxWait or MLXBUILD_IDLE_MAX")
	return b.String()
}

func join(ps []Proc) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ", ")
}

// Wait checks c every o.Poll until no check has found anything for o.Quiet,
// and returns a *TimeoutError after o.Max. The quiet time starts at the first
// check (what ran before it is unknown) and restarts at every check that
// finds a process. Progress goes to o.Log when the set of processes changes.
func Wait(ctx context.Context, c Checker, o Options) (Result, error) {
	if err := o.Validate(); err != nil {
		return Result{}, err
	}
	clock := o.Clock
	if clock == nil {
		clock = realClock{}
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	start := clock.Now()
	quietSince := start
	var last []Proc // what the latest busy check found
	busyNow := false
	checks := 0
	for {
		procs, err := c.Busy(ctx)
		checks++
		if err != nil {
			return Result{Checks: checks}, err
		}
		now := clock.Now()
		switch {
		case len(procs) > 0:
			if !busyNow || !slices.Equal(procs, last) {
				logf("busy: %s; waiting", join(procs))
			}
			busyNow, last, quietSince = true, procs, now
		case busyNow:
			logf("nothing running; waiting until it stays so for %s", o.Quiet)
			busyNow = false
		}
		if !busyNow && now.Sub(quietSince) >= o.Quiet {
			return Result{Waited: now.Sub(start), Checks: checks}, nil
		}
		if now.Sub(start) >= o.Max {
			e := &TimeoutError{Quiet: o.Quiet, Max: o.Max, LastBusy: last, Since: now.Sub(quietSince)}
			if busyNow {
				e.Running = procs
			}
			return Result{Waited: now.Sub(start), Checks: checks}, e
		}
		// Sleep no longer than needed to reach the quiet time or the limit.
		d := o.Poll
		if !busyNow {
			d = min(d, o.Quiet-now.Sub(quietSince))
		}
		d = min(d, o.Max-now.Sub(start))
		if err := clock.Sleep(ctx, d); err != nil {
			return Result{Waited: clock.Now().Sub(start), Checks: checks}, fmt.Errorf("waiting for an idle GPU: %w", err)
		}
	}
}
