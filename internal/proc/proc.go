// Package proc starts external programs the way every part of mlxbuild must:
// with explicit arguments (never a shell), a context, and a stop that reaches
// every process the program started, so neither a hung probe nor a compiler
// that Ninja started outlives the step that started it, or mlxbuild itself.
//
// When the context ends, the program gets SIGTERM first (Ninja then stops
// the jobs it runs in their own process groups), then, after Grace or as
// soon as it exited, SIGKILL reaches whatever is left. On Linux each program
// runs under a small supervisor (this binary, re-executed; supervise_linux.go)
// that dies with mlxbuild, even by SIGKILL, and takes the program's whole
// tree with it. A context that ended by its deadline is reported as a
// timeout (ErrTimeout), one cancelled (Ctrl-C, SIGTERM, SIGHUP) as an
// interruption (ErrInterrupted): never one as the other.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Cmd describes one program run.
type Cmd struct {
	Path string   // program path or name looked up on PATH
	Args []string // arguments, without the program name
	Dir  string   // working directory; empty means the current one
	Env  []string // full environment; nil means the current process's
	// Stdout and Stderr, when set, receive the output as it is produced in
	// addition to the captured copies in Result.
	Stdout, Stderr io.Writer
	// Stdin, when set, is the program's standard input.
	Stdin io.Reader
	// Terminal asks for one pseudo-terminal as the program's stdout and
	// stderr (Linux, where one can be opened; pipes otherwise), so it
	// prints as it does for a person: Ninja then shows an edge when it
	// starts. Both streams then reach Stdout and Result.Stdout, in order.
	Terminal bool
}

// Result is what a finished (or stopped) program left behind.
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int  // -1 when the program did not exit by itself
	TimedOut bool // the context's deadline passed before the program ended
	// Interrupted: the context was cancelled (an interrupt, SIGTERM or
	// SIGHUP of mlxbuild, or a caller giving up) before the program ended.
	Interrupted bool
	Duration    time.Duration
	// Terminal: the program ran on a pseudo-terminal (Cmd.Terminal and one
	// could be opened); Stderr is then empty.
	Terminal bool
}

// ErrTimeout is wrapped by Run's error when the context's deadline stopped the program.
var ErrTimeout = errors.New("timed out")

// ErrInterrupted is wrapped by Run's error when a cancelled context stopped
// the program. It is of fail's Interrupted kind, so a run stopped from
// outside exits as one, whatever wraps it.
var ErrInterrupted error = &fail.Error{K: fail.Interrupted, Err: errors.New("interrupted")}

// Grace is how long a stopped program has between SIGTERM and SIGKILL. It
// is well inside the 5 s Mage waits for a target after Ctrl-C.
const Grace = 2 * time.Second

// Run starts c and waits for it. When ctx ends, c is stopped with its
// whole tree (SIGTERM, then SIGKILL after Grace) and Run returns promptly
// with ErrTimeout or ErrInterrupted. A non-zero exit is an *ExitError with
// the captured output; a program that cannot be started gives exec's error.
func Run(ctx context.Context, c Cmd) (Result, error) {
	return run(ctx, c, platformStarter)
}

// starter makes the exec.Cmd that runs the resolved program path for c, and
// knows how to stop it.
type starter interface {
	command(path string, c Cmd) (*exec.Cmd, *launch, error)
}

// launch is a started command's platform part: how to wait for the start
// to be confirmed and how to stop it.
type launch struct {
	// confirm, when set, blocks until the program itself started and
	// returns why it could not.
	confirm func() error
	// stop ends the program and its tree; done closes when the command was waited for.
	stop func(cmd *exec.Cmd, done <-chan struct{})
	// closeAfterStart are the parent's copies of files handed to the child.
	closeAfterStart []io.Closer
}

// running is a started command: cmd's process, the platform's launch, done
// closed once it was waited for and its output copied, then err its
// Wait's error.
type running struct {
	cmd  *exec.Cmd
	l    *launch
	done chan struct{}
	err  error
	term *terminal // the program's pseudo-terminal; nil when it writes to pipes
}

// outputDelay is how long after the program exited its output pipes (or
// its terminal) are still read: a grandchild that left the tree (a daemon
// such as sccache's server) could keep them open forever.
const outputDelay = 5 * time.Second

func run(ctx context.Context, c Cmd, s starter) (Result, error) {
	target := exec.Command(c.Path, c.Args...)
	if target.Err != nil {
		return Result{ExitCode: -1}, target.Err
	}
	var out, errb bytes.Buffer
	stdout, stderr := tee(&out, c.Stdout), tee(&errb, c.Stderr)
	start := time.Now()
	r, err := startFresh(target.Path, c, s, stdout, stderr)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	if r.l.confirm != nil {
		if err := r.l.confirm(); err != nil {
			<-r.done
			r.term.drain()
			return Result{ExitCode: -1}, err
		}
	}
	stopped := false
	select {
	case <-r.done:
	case <-ctx.Done():
		stopped = true
		r.l.stop(r.cmd, r.done)
		<-r.done
	}
	r.term.drain()
	cmd := r.cmd
	res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: -1, Duration: time.Since(start), Terminal: r.term != nil}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if stopped {
		took := res.Duration.Round(time.Millisecond)
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.TimedOut = true
			return res, fmt.Errorf("%s: %w after %s (stopped with every process it started)", c.Path, ErrTimeout, took)
		}
		res.Interrupted = true
		return res, fmt.Errorf("%s: %w%s after %s (stopped with every process it started)", c.Path, ErrInterrupted, causeOf(ctx), took)
	}
	if r.err != nil {
		return res, &ExitError{Cmd: c, Result: res, Err: r.err}
	}
	return res, nil
}

// startFresh starts the command s makes for c, its output going to stdout
// and stderr.
func startFresh(path string, c Cmd, s starter, stdout, stderr io.Writer) (*running, error) {
	cmd, l, err := s.command(path, c)
	if err != nil {
		return nil, err
	}
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = outputDelay
	var term *terminal
	if c.Terminal {
		term = attachTerminal(cmd) // nil where none can be opened: the pipes stay
	}
	started, waited := startLocked(cmd)
	err = <-started
	for _, f := range l.closeAfterStart {
		f.Close()
	}
	term.started()
	if err != nil {
		term.drain()
		return nil, err
	}
	r := &running{cmd: cmd, l: l, done: make(chan struct{}), term: term}
	go func() { r.err = <-waited; close(r.done) }()
	return r, nil
}

func tee(buf *bytes.Buffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}

// ExitError is a program that ran and failed.
type ExitError struct {
	Cmd    Cmd
	Result Result
	Err    error
}

func (e *ExitError) Error() string {
	msg := strings.TrimSpace(string(e.Result.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(e.Result.Stdout))
	}
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	if msg != "" {
		return fmt.Sprintf("%s %s: %v: %s", e.Cmd.Path, strings.Join(e.Cmd.Args, " "), e.Err, msg)
	}
	return fmt.Sprintf("%s %s: %v", e.Cmd.Path, strings.Join(e.Cmd.Args, " "), e.Err)
}

func (e *ExitError) Unwrap() error { return e.Err }
