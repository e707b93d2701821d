package reliability

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/pty"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestSignalsStopATerminalBuild runs build:cpu of napProject with the
// compiled mlxbuild on a terminal (a pseudo-terminal as its stdout and
// stderr), so Ninja runs on a pseudo-terminal of its own, and sends SIGINT
// or SIGTERM while Ninja's three jobs sleep: the line showed the running
// jobs, mlxbuild exits 1 saying it was interrupted, and within stopBound no
// process it started lives.
func TestSignalsStopATerminalBuild(t *testing.T) {
	bin := compiledMlxbuild(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, marker := napBuild(t, bin, fmt.Sprintf("terminal-%d", sig), "build:cpu")
			cmd.Env = append(cmd.Env, "TERM=xterm")
			master, slave, err := pty.Open(100, 24)
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			var screen testutil.LockedBuffer
			copied := make(chan struct{})
			go func() {
				_, _ = io.Copy(&screen, master) // until EIO: every holder of the terminal is gone
				close(copied)
			}()
			shown := screen.String

			cmd.Stdout, cmd.Stderr = slave, slave
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			for deadline := time.Now().Add(2 * time.Minute); len(sleeping(marker)) < 3 || !strings.Contains(shown(), ", 3 running] nap "); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("Ninja's three jobs did not show as running; the terminal:\n%q", shown())
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var werr error
			select {
			case werr = <-waited:
			case <-time.After(stopBound):
				t.Fatalf("mlxbuild still runs %s after %v; the terminal:\n%q", stopBound, sig, shown())
			}
			took := testutil.NoneMarkedWithin(t, marker, stopBound)
			<-copied // every holder of the terminal is gone
			var ee *exec.ExitError
			want := "build:cpu interrupted by " + map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT (Ctrl-C)"}[sig]
			if !errors.As(werr, &ee) || ee.ExitCode() != 1 || !strings.Contains(shown(), want) {
				t.Errorf("mlxbuild ended with %v, want exit status 1 and %q; the terminal:\n%q", werr, want, shown())
			}
			t.Logf("%v: mlxbuild ended (%v), its last descendant %s later; the terminal:\n%q", sig, werr, took, shown())
		})
	}
}
