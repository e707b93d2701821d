package proc

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
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
// with an *Interruption naming the signal as its cause. Once it is called
// the signals no longer end the process by themselves: the caller's work
// stops through the context, and every program started through Run is
// stopped with it. The signal is also recorded when another handler (Mage's
// own, for Ctrl-C) cancelled the parent first, so StopCause can name it.
// stop releases the signals.
func WithSignals(parent context.Context) (ctx context.Context, stop func()) {
	got := new(atomic.Pointer[Interruption])
	cctx, cancel := context.WithCancelCause(context.WithValue(parent, signalKey{}, got))
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, StopSignals...)
	quit := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			in := &Interruption{Signal: sig}
			got.CompareAndSwap(nil, in)
			cancel(in)
		case <-quit:
		}
	}()
	return cctx, func() {
		signal.Stop(ch)
		close(quit)
		cancel(nil)
	}
}

type signalKey struct{}

// StopCause says why ctx ended: timedOut when its deadline passed, else
// the signal that interrupted it (nil when it was cancelled otherwise or
// the signal is not known). A live context gives false, nil.
func StopCause(ctx context.Context) (timedOut bool, in *Interruption) {
	if ctx.Err() == nil {
		return false, nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return true, nil
	}
	if errors.As(context.Cause(ctx), &in) {
		return false, in
	}
	if got, ok := ctx.Value(signalKey{}).(*atomic.Pointer[Interruption]); ok {
		return false, got.Load()
	}
	return false, nil
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
	if _, in := StopCause(ctx); in != nil {
		return " by " + SignalName(in.Signal)
	}
	return ""
}
