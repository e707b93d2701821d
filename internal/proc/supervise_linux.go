package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// A supervisor is this executable started with argv[0] superviseArg0 and
// superviseEnv set (to the grace period in milliseconds). Both are needed,
// so a variable leaking into a user's environment changes nothing.
const (
	superviseEnv  = "MLXBUILD_PROC_SUPERVISE"
	superviseArg0 = "mlxbuild-supervise"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER from <linux/prctl.h>.
const prSetChildSubreaper = 36

// init turns the process into a supervisor before anything else of
// mlxbuild runs, the way a re-executed helper must: every binary that can
// call Run (mlxbuild, a test binary) links this package, so it can be its
// own supervisor without a second executable to install.
func init() {
	if len(os.Args) < 1 || os.Args[0] != superviseArg0 {
		return
	}
	spec, ok := os.LookupEnv(superviseEnv)
	if !ok {
		return
	}
	sv := readySupervisor(spec)
	if len(os.Args) < 2 {
		os.Exit(sv.fail(errors.New("supervisor started without a program")))
	}
	os.Exit(supervise(sv, os.Args[1:]))
}

// statusFD is where a supervisor says why its program could not start (EOF
// once it started).
const statusFD = 3

// supervisor is a supervisor made ready to start a program: its thread
// locked, its status pipe open, subreaper, the stop signals caught, and
// Go's one-time probe of process file descriptors done; err is why it
// could not be made ready.
type supervisor struct {
	grace  time.Duration
	status *os.File
	sigs   chan os.Signal
	err    error
}

func readySupervisor(spec string) *supervisor {
	// Started from this thread, the program's own death signal fires when
	// this thread ends; it never ends before the process does.
	runtime.LockOSThread()
	sv := &supervisor{grace: Grace, sigs: make(chan os.Signal, 4)}
	if ms, err := strconv.Atoi(spec); err == nil && ms >= 0 {
		sv.grace = time.Duration(ms) * time.Millisecond
	}
	os.Unsetenv(superviseEnv)
	syscall.CloseOnExec(statusFD)
	sv.status = os.NewFile(statusFD, "start-status")
	if err := becomeSubreaper(setChildSubreaper); err != nil {
		sv.err = err
		return sv
	}
	signal.Notify(sv.sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	// os.StartProcess checks once whether pidfds work by starting a
	// child; finding a process runs the same check, here, ahead of time.
	if self, err := os.FindProcess(os.Getpid()); err == nil {
		_ = self.Release()
	}
	return sv
}

// setChildSubreaper is prctl(PR_SET_CHILD_SUBREAPER, 1).
func setChildSubreaper() syscall.Errno {
	_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return e
}

// becomeSubreaper makes the supervisor the reaper of its program's
// orphans, so that a stop finds them in its tree. Where prctl answers
// EINVAL, the option does not exist: qemu-user (7.2, Debian 12's) passes
// no PR_SET_CHILD_SUBREAPER through, and mlxbuild in an emulated arm64
// root (docs/aarch64.md) could start no process at all. There the
// supervisor goes on without: the program and its process group are
// still stopped; only what it detached and orphaned escapes the stop.
func becomeSubreaper(prctl func() syscall.Errno) error {
	switch e := prctl(); e {
	case 0, syscall.EINVAL:
		return nil
	default:
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
}

// fail reports why the program could not start, and is the exit status.
func (sv *supervisor) fail(err error) int {
	fmt.Fprint(sv.status, err.Error())
	sv.status.Close()
	return 127
}

// supervise runs the program argv names (in this process's environment and
// directory) and returns the exit status
// to leave with. When the program ends by itself, its status is passed on
// and whatever it left running in the background stays (a compiler
// cache's server). When SIGTERM, SIGINT or SIGHUP arrives (Run stopping
// it, or mlxbuild's death through PR_SET_PDEATHSIG), the program gets
// SIGTERM, and after the grace period, or as soon as it exited, every
// process still in the tree gets SIGKILL.
func supervise(sv *supervisor, argv []string) int {
	if sv.err != nil {
		return sv.fail(fmt.Errorf("supervising %s: %v", argv[0], sv.err))
	}
	status, sigs, grace := sv.status, sv.sigs, sv.grace
	cmd := &exec.Cmd{Path: argv[0], Args: argv, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	if err := cmd.Start(); err != nil {
		return sv.fail(err)
	}
	status.Close()
	waited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(waited) }()
	select {
	case <-waited:
		return passOn(cmd.ProcessState)
	case <-sigs:
	}
	// Ninja, on SIGTERM, stops the jobs it runs in their own process
	// groups and exits; a compiler just exits.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-waited:
	case <-time.After(grace):
	}
	killTree(os.Getpid(), 5*time.Second)
	select {
	case <-waited:
	case <-time.After(time.Second):
	}
	reapOrphans()
	return 128 + int(syscall.SIGTERM)
}

// passOn leaves with the program's status: its exit code, or the signal
// that killed it, raised again where that ends this process the same way.
func passOn(ps *os.ProcessState) int {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return ps.ExitCode()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
	}
	return 128 + int(sig)
}

// reapOrphans collects the exit status of the killed processes that were
// reparented here, so none stays a zombie until this process exits.
func reapOrphans() {
	for i := 0; i < 1000; i++ {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if err != nil || pid <= 0 {
			return
		}
	}
}
