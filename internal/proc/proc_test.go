package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunCapturesAndReportsExit(t *testing.T) {
	res, err := Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", "echo out; echo err >&2; exit 3"}})
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want *ExitError, got %v", err)
	}
	if res.ExitCode != 3 || string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.TimedOut {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(err.Error(), "err") {
		t.Errorf("error %q does not quote stderr", err)
	}
	if _, err := Run(context.Background(), Cmd{Path: "/no/such/program"}); err == nil {
		t.Error("a missing program started")
	}
}

// TestRunKillsTheWholeGroup starts a shell that leaves a grandchild
// sleeping, and checks the timeout kills both and returns promptly.
func TestRunKillsTheWholeGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// Long enough for the shell to start and write the pid under a loaded
	// CI machine (300 ms was not, at load 24); the check is what the
	// timeout kills, not how soon.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	res, err := Run(ctx, Cmd{Path: "sh", Args: []string{"-c", "sleep 600 & echo $! > " + pidFile + "; wait"}})
	if !errors.Is(err, ErrTimeout) || !res.TimedOut {
		t.Fatalf("want a timeout, got %v (%+v)", err, res)
	}
	if took := time.Since(start); took > 13*time.Second {
		t.Errorf("Run returned after %s", took)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		// A zombie still answers kill(0); its state in /proc says Z.
		if st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild sleep (pid %d) survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
