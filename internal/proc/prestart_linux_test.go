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

// waiting returns the prestarted supervisor's pid, failing when there is none.
func waiting(t *testing.T) int {
	t.Helper()
	p := warm.Load()
	if p == nil {
		t.Fatal("no prestarted supervisor is waiting")
	}
	return p.cmd.Process.Pid
}

// gone waits until pid no longer exists (it was reaped).
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still exists", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPrestartedRunsTheProgram: the next Run takes the waiting supervisor
// (the program's parent is that process), with the environment and working
// directory of the moment Run is called, not of Prestart's, and reports
// output and exit status as a supervisor Run starts itself does.
func TestPrestartedRunsTheProgram(t *testing.T) {
	release := Prestart()
	defer release()
	sup := waiting(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("MLXBUILD_PRESTART_TEST", "after-prestart")
	res, err := Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", `echo "$PPID $MLXBUILD_PRESTART_TEST $(pwd) ${MLXBUILD_PROC_SUPERVISE-unset}"; echo err >&2; exit 3`}})
	var ee *ExitError
	if !errors.As(err, &ee) || res.ExitCode != 3 || string(res.Stderr) != "err\n" {
		t.Fatalf("Run: %v (%+v)", err, res)
	}
	if got, want := strings.TrimSpace(string(res.Stdout)), strconv.Itoa(sup)+" after-prestart "+dir+" unset"; got != want {
		t.Errorf("the program printed %q, want %q (parent, variable, directory, supervisor variable)", got, want)
	}
	if warm.Load() != nil {
		t.Error("the used supervisor is still offered")
	}
	gone(t, sup)

	// An explicit environment and directory are the program's.
	Prestart()
	sup = waiting(t)
	other := t.TempDir()
	res, err = Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", `echo "$PPID $ONLY $(pwd)"; env | wc -l`}, Env: []string{"ONLY=1"}, Dir: other})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
	if len(lines) != 2 || lines[0] != strconv.Itoa(sup)+" 1 "+other {
		t.Errorf("the program printed %q", res.Stdout)
	}
	// sh adds PWD, SHLVL and _ at most.
	if n, _ := strconv.Atoi(strings.TrimSpace(lines[len(lines)-1])); n < 1 || n > 4 {
		t.Errorf("the program saw %d variables, want ONLY and sh's own", n)
	}
}

// TestPrestartedReleased: release ends a supervisor no Run took, and an
// unused one left by a second Prestart is not doubled.
func TestPrestartedReleased(t *testing.T) {
	release := Prestart()
	sup := waiting(t)
	Prestart()() // one is waiting: this one starts nothing, releases nothing
	if got := waiting(t); got != sup {
		t.Fatalf("a second supervisor %d replaced %d", got, sup)
	}
	release()
	if warm.Load() != nil {
		t.Error("a released supervisor is still offered")
	}
	gone(t, sup)
}

// TestPrestartedFallsBack: a program that reads standard input gets a
// supervisor of its own (the waiting one has /dev/null), and the waiting
// one stays for the next; a program that cannot start is reported as with
// a fresh supervisor.
func TestPrestartedFallsBack(t *testing.T) {
	release := Prestart()
	defer release()
	sup := waiting(t)
	res, err := Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", "cat; echo $PPID"}, Stdin: strings.NewReader("in\n")})
	if err != nil || !strings.HasPrefix(string(res.Stdout), "in\n") || strings.Contains(string(res.Stdout), strconv.Itoa(sup)) {
		t.Fatalf("with stdin: %v %q", err, res.Stdout)
	}
	if waiting(t) != sup {
		t.Fatal("the waiting supervisor was replaced")
	}
	notExec := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, coldErr := run(context.Background(), Cmd{Path: notExec}, platformStarter, false)
	_, warmErr := Run(context.Background(), Cmd{Path: notExec})
	if coldErr == nil || warmErr == nil || coldErr.Error() != warmErr.Error() {
		t.Errorf("a program that cannot start: fresh supervisor %v, prestarted %v", coldErr, warmErr)
	}
	if warm.Load() != nil {
		t.Error("the supervisor that failed to start its program is still offered")
	}
	gone(t, sup)
}
