// Package fail is mlxbuild's one error model. Every error is of one kind:
// a configuration or usage problem the user fixes in a file or a variable
// (exit status 2), a failure of the work itself (exit 1), or an interrupt
// (Ctrl-C, SIGTERM; exit 1, reported as "interrupted", never as a failure
// or a timeout). What to do about an error is said once, by the outermost
// layer that knows it (Message).
package fail

import (
	"context"
	"errors"
	"fmt"
)

// Kind is what sort of error an error is.
type Kind uint8

const (
	// Failure is the work failing: a compile error, a missing library, a
	// check that found something. It is the kind of an error that says
	// nothing else.
	Failure Kind = iota
	// Config is bad configuration or usage: a file, a variable or an
	// argument the user must change.
	Config
	// Interrupted is the run being stopped from outside.
	Interrupted
)

func (k Kind) String() string {
	switch k {
	case Config:
		return "configuration"
	case Interrupted:
		return "interrupted"
	}
	return "failure"
}

// ExitCode is the process exit status for the kind: 2 for configuration,
// 1 otherwise.
func (k Kind) ExitCode() int {
	if k == Config {
		return 2
	}
	return 1
}

// Kinded is implemented by error types that always have one kind (a
// project file's problems are always configuration); *Error implements it
// for everything else.
type Kinded interface {
	error
	Kind() Kind
}

// Error gives an error a kind and, optionally, what to do about it.
type Error struct {
	K   Kind
	Err error
	// Fix says what the user can do, in one sentence; Message prints the
	// outermost one once, after the error.
	Fix string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }
func (e *Error) Kind() Kind    { return e.K }

// Configf makes a configuration error.
func Configf(format string, args ...any) error {
	return &Error{K: Config, Err: fmt.Errorf(format, args...)}
}

// AsConfig marks err as a configuration error; nil stays nil.
func AsConfig(err error) error {
	if err == nil {
		return nil
	}
	return &Error{K: Config, Err: err}
}

// WithFix adds what to do to err, keeping its kind; nil stays nil.
func WithFix(err error, fix string) error {
	if err == nil {
		return nil
	}
	return &Error{K: KindOf(err), Err: err, Fix: fix}
}

// KindOf is the kind of err: the outermost one an error in its chain
// declares, else Interrupted for a cancelled context, else Failure.
func KindOf(err error) Kind {
	var k Kinded
	if errors.As(err, &k) {
		return k.Kind()
	}
	if errors.Is(err, context.Canceled) {
		return Interrupted
	}
	return Failure
}

// ExitCode is the exit status for err: 0 for nil.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	return KindOf(err).ExitCode()
}

// Message is err as the user reads it: the error, then the outermost fix in
// its chain, once. An interrupt says so plainly.
func Message(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if KindOf(err) == Interrupted && !errors.As(err, new(Kinded)) {
		msg = "interrupted: " + msg
	}
	var e *Error
	for cur := err; errors.As(cur, &e); cur = e.Err {
		if e.Fix != "" {
			return msg + "\n" + e.Fix
		}
	}
	return msg
}
