package reliability

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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
	testutil.NeedTools(t, "go", "cmake", "ninja", "sleep")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := testutil.CompileMlxbuild(t, repo)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			marker := fmt.Sprintf("MLXBUILD_RELIABILITY_RUN=terminal-%d-%d", sig, time.Now().UnixNano())
			t.Cleanup(func() {
				for _, p := range testutil.Marked(marker) {
					_ = syscall.Kill(p, syscall.SIGKILL) // only what this test started carries the marker
				}
			})
			master, slave, err := pty.Open(100, 24)
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			var mu sync.Mutex
			var screen strings.Builder
			copied := make(chan struct{})
			go func() {
				defer close(copied)
				_, _ = io.Copy(writerFunc(func(b []byte) (int, error) {
					mu.Lock()
					defer mu.Unlock()
					return screen.Write(b)
				}), master)
			}()
			shown := func() string { mu.Lock(); defer mu.Unlock(); return screen.String() }

			cmd := exec.Command(bin, "build:cpu")
			cmd.Dir = napProject(t)
			cmd.Env = append(testutil.EnvWithout("MLXBUILD_CACHE", "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS"), marker, "MLXBUILD_JOBS=3", "NO_COLOR=1", "TERM=xterm")
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

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
