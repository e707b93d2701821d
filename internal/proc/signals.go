package proc

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Interruption is the cause of a context that WithSignals cancelled.
type Interruption struct{ Signal os.Signal }

func (e *Interruption) Error() string { return "interrupted by " + SignalName(e.Signal) }

// Unwrap makes errors.Is(cause, ErrInterrupted) hold.
func (e *Interruption) Unwrap() error { return ErrInterrupted }

// StopSignals are the signals mlxbuild treats as "stop now": Ctrl-C, a CI
// runner's or init system's SIGTERM, a closed terminal's SIGHUP.
var StopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// WithSignals returns a context cancelled when one of StopSignals arrives,
// with an *Interruption naming the signal as its cause (context.Cause).
// Once it is called the signals no longer end the process by themselves:
// the caller's work stops through the context, and every program started
// through Run is stopped with it. stop releases the signals.
func WithSignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, StopSignals...)
	quit := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			cancel(&Interruption{Signal: sig})
		case <-quit:
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(quit)
		cancel(nil)
	}
}

// SignalName is the signal's usual name: "SIGTERM", "SIGINT (Ctrl-C)".
func SignalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// causeOf is " by SIGTERM" when a signal cancelled ctx, else "".
func causeOf(ctx context.Context) string {
	var in *Interruption
	if errors.As(context.Cause(ctx), &in) {
		return " by " + SignalName(in.Signal)
	}
	return ""
}

// Interrupted reports whether ctx was cancelled rather than timed out,
// with the signal's interruption when a signal did it.
func Interrupted(ctx context.Context) (bool, *Interruption) {
	if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return false, nil
	}
	var in *Interruption
	errors.As(context.Cause(ctx), &in)
	return true, in
}
