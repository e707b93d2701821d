package proc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	. "github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// stopBound is how long after a stop the tests allow a marked process to
// live: the grace period, the supervisor's kill loop and a slow machine.
const stopBound = Grace + 5*time.Second

// sleepingNinja writes a Ninja project whose three edges each run sleep 600
// (Ninja runs each in its own process group) and returns its directory.
func sleepingNinja(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `rule nap
  command = sleep 600 && touch $out
  description = NAP $out
build a: nap
build b: nap
build c: nap
default a b c
`)
	return dir
}

// marked gives a unique marker variable and an environment carrying it;
// the test kills what still carries it when it ends (by pid: only what it
// started has the marker).
func marked(t *testing.T) (string, []string) {
	t.Helper()
	marker := fmt.Sprintf("MLXBUILD_PROC_TEST=%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	t.Cleanup(func() {
		for _, p := range testutil.Marked(marker) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	return marker, append(os.Environ(), marker)
}

// TestStopReachesNinjasJobs cancels and times out a real Ninja whose jobs
// sleep in their own process groups: Run says which of the two happened,
// Ninja is told first (it reports the stop itself), and no job survives.
func TestStopReachesNinjasJobs(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sleep")
	for _, how := range []string{"cancel", "deadline"} {
		t.Run(how, func(t *testing.T) {
			marker, env := marked(t)
			dir := sleepingNinja(t)
			ctx, cancel := context.WithCancel(context.Background())
			if how == "deadline" {
				ctx, cancel = context.WithTimeout(context.Background(), 1500*time.Millisecond)
			}
			defer cancel()
			type out struct {
				res Result
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := Run(ctx, Cmd{Path: "ninja", Args: []string{"-C", dir, "-j", "3"}, Env: env})
				done <- out{res, err}
			}()
			testutil.WaitMarked(t, marker, 5, 10*time.Second) // supervisor, ninja, 3 shells or sleeps
			if how == "cancel" {
				cancel()
			}
			var o out
			select {
			case o = <-done:
			case <-time.After(stopBound):
				t.Fatalf("Run did not return %s after the stop", stopBound)
			}
			if how == "cancel" {
				if !errors.Is(o.err, ErrInterrupted) || errors.Is(o.err, ErrTimeout) || !o.res.Interrupted || o.res.TimedOut ||
					!strings.Contains(o.err.Error(), "interrupted after") || fail.KindOf(o.err) != fail.Interrupted {
					t.Errorf("cancelled: %v (%+v)", o.err, o.res)
				}
			} else if !errors.Is(o.err, ErrTimeout) || errors.Is(o.err, ErrInterrupted) || !o.res.TimedOut || !strings.Contains(o.err.Error(), "timed out after") || fail.KindOf(o.err) != fail.Failure {
				t.Errorf("deadline: %v (%+v)", o.err, o.res)
			}
			// Ninja got SIGTERM before anything was killed: it says so.
			if !strings.Contains(string(o.res.Stdout)+string(o.res.Stderr), "interrupted by user") {
				t.Errorf("ninja did not report the stop; output:\n%s%s", o.res.Stdout, o.res.Stderr)
			}
			took := testutil.NoneMarkedWithin(t, marker, stopBound)
			t.Logf("%s: %v; every job gone %s after Run returned", how, o.err, took)
		})
	}
}

// TestMain lets this test binary play mlxbuild for
// TestChildrenDieWithTheirParent: started again with PROC_HELPER_DIR set,
// it runs Ninja in that directory through Run under WithSignals' context,
// reports Run's error and exits 1 on one.
func TestMain(m *testing.M) {
	dir := os.Getenv("PROC_HELPER_DIR")
	if dir == "" {
		os.Exit(m.Run())
	}
	ctx, stop := WithSignals(context.Background())
	defer stop()
	if os.Getenv("PROC_HELPER_LEAF") != "" { // a program run without a supervisor, by its death signal alone
		fmt.Fprintln(os.Stderr, "helper: leaf")
		_, err := RunLeaf(ctx, Cmd{Path: "sleep", Args: []string{"600"}})
		fmt.Fprintf(os.Stderr, "helper: %v\n", err)
		os.Exit(1)
	}
	_, err := Run(ctx, Cmd{Path: "ninja", Args: []string{"-C", dir, "-j", "3"}})
	fmt.Fprintf(os.Stderr, "helper: %v\n", err)
	if err != nil {
		os.Exit(1)
	}
}

// TestChildrenDieWithTheirParent sends SIGKILL, SIGTERM, SIGHUP and SIGINT
// to a process that runs Ninja through Run (a child process of this test),
// and checks that no process it started, Ninja's jobs included, outlives it
// for long; and that the handled signals are reported as an interruption,
// exit status 1, never as a timeout.
func TestChildrenDieWithTheirParent(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sleep")
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) { childrenDie(t, sig) })
	}
}

// TestLeafDiesWithItsParent: a program RunLeaf started (no supervisor)
// does not outlive the process that started it, even killed by SIGKILL,
// and is stopped when that process is interrupted.
func TestLeafDiesWithItsParent(t *testing.T) {
	testutil.NeedTools(t, "sleep")
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			marker, env := marked(t)
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(env, "PROC_HELPER_DIR="+t.TempDir(), "PROC_HELPER_LEAF=1")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			testutil.WaitMarked(t, marker, 2, 15*time.Second) // helper, sleep: no supervisor
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			took := testutil.NoneMarkedWithin(t, marker, stopBound)
			t.Logf("%v: the leaf program ended %s after its parent", sig, took)
		})
	}
}

func childrenDie(t *testing.T, sig syscall.Signal) {
	marker, env := marked(t)
	dir := sleepingNinja(t)
	var stderr strings.Builder
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(env, "PROC_HELPER_DIR="+dir)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	testutil.WaitMarked(t, marker, 6, 15*time.Second) // helper, supervisor, ninja, 3 jobs
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-waited:
	case <-time.After(stopBound):
		t.Fatalf("the helper did not exit %s after %v", stopBound, sig)
	}
	took := testutil.NoneMarkedWithin(t, marker, stopBound)
	t.Logf("%v: helper ended (%v); its last descendant %s later", sig, err, took)
	if sig == syscall.SIGKILL {
		return
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("helper ended with %v, want exit status 1", err)
	}
	want := "interrupted by " + SignalName(sig)
	if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "timed out") {
		t.Errorf("helper's report lacks %q (or says timed out):\n%s", want, stderr.String())
	}
}

// TestDeathSignalOutlivesThreadExits: Linux sends PR_SET_PDEATHSIG when the
// thread that forked the child ends. Goroutines that lock their thread and
// return end their threads; a program started by Run must not be stopped by
// that (it would come back as a failure of the supervisor).
func TestDeathSignalOutlivesThreadExits(t *testing.T) {
	testutil.NeedTools(t, "sleep")
	stopChurn := make(chan struct{})
	churned := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stopChurn:
				churned <- n
				return
			default:
			}
			done := make(chan struct{})
			go func() {
				runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				close(done)
			}()
			<-done
			n++
			time.Sleep(time.Millisecond)
		}
	}()
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			_, err := Run(context.Background(), Cmd{Path: "sleep", Args: []string{"1.5"}})
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Errorf("a program was stopped while threads ended: %v", err)
		}
	}
	close(stopChurn)
	if n := <-churned; n < 50 {
		t.Errorf("only %d threads ended during the runs; the test proves nothing", n)
	}
}
