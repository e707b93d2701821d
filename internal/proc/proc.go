// Package proc starts external programs the way every part of mlxbuild must:
// with explicit arguments (never a shell), a context, and a process group that
// is killed as a whole when the context ends, so a hung probe or compiler
// cannot outlive the step that started it.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"
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
}

// Result is what a finished (or killed) program left behind.
type Result struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int  // -1 when the program did not exit by itself
	TimedOut bool // the context ended before the program did
	Duration time.Duration
}

// ErrTimeout is wrapped by Run's error when the context's deadline killed the program.
var ErrTimeout = errors.New("timed out")

// Run starts c in its own process group and waits for it. When ctx ends, the
// whole group gets SIGKILL, so children (a shell script's sleep, a compiler's
// cc1) die too. A non-zero exit is reported as an *ExitError with the
// captured output; a program that cannot be started gives exec's error.
func Run(ctx context.Context, c Cmd) (Result, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	var out, errb bytes.Buffer
	cmd.Stdout = tee(&out, c.Stdout)
	cmd.Stderr = tee(&errb, c.Stderr)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that left the group (a daemon) could keep the output pipes
	// open forever; stop waiting for them shortly after the program exits.
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{ExitCode: -1}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	timedOut := false
	select {
	case werr = <-done:
	case <-ctx.Done():
		// Kill the group (negative pid), then reap the leader. Output pipes
		// close once every member is gone.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		werr = <-done
		timedOut = true
	}
	res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes(), ExitCode: -1, Duration: time.Since(start), TimedOut: timedOut}
	if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
		res.ExitCode = cmd.ProcessState.ExitCode()
	}
	if timedOut {
		return res, fmt.Errorf("%s: %w after %s (process group killed)", c.Path, ErrTimeout, res.Duration.Round(time.Millisecond))
	}
	if werr != nil {
		return res, &ExitError{Cmd: c, Result: res, Err: werr}
	}
	return res, nil
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
