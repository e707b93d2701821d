package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// platformStarter: on Linux every program runs under a supervisor.
var platformStarter starter = supervisedStarter{}

// supervisedStarter runs the program under a supervisor: this executable
// started again (see supervise_linux.go), in its own process group, with
// PR_SET_PDEATHSIG so that it learns of mlxbuild's death, SIGKILL included.
// The supervisor is a child subreaper: whatever the program starts stays in
// its tree even when the program's own children are orphaned (Ninja's jobs
// after Ninja died), so it can stop all of it. The program itself gets
// PR_SET_PDEATHSIG=SIGKILL from the supervisor.
type supervisedStarter struct{}

// stopMargin is how long after Grace the supervisor gets to kill the tree
// and exit before its group is killed from here.
const stopMargin = 3 * time.Second

func (supervisedStarter) command(path string, c Cmd) (*exec.Cmd, *launch, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("finding mlxbuild's own executable, which supervises %s: %w", path, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	env := c.Env
	if env == nil {
		env = os.Environ()
	}
	cmd := &exec.Cmd{
		Path:        self,
		Args:        append([]string{superviseArg0, path}, c.Args...),
		Env:         supervisorEnv(env),
		ExtraFiles:  []*os.File{w}, // fd 3: why the program could not start, or EOF once it did
		SysProcAttr: supervisorAttr(),
	}
	return cmd, &launch{closeAfterStart: []io.Closer{w}, confirm: confirmFrom(r), stop: stopSupervisor}, nil
}

// supervisorEnv is env with superviseEnv set to the grace period.
func supervisorEnv(env []string) []string {
	return append(withoutVar(env, superviseEnv), superviseEnv+"="+strconv.FormatInt(Grace.Milliseconds(), 10))
}

// supervisorAttr puts a supervisor in its own process group and gives it
// SIGTERM, not SIGKILL, when mlxbuild dies: it must live on to stop the tree.
func supervisorAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// confirmFrom reads a supervisor's start status from r: EOF once the
// program started, else why it could not.
func confirmFrom(r *os.File) func() error {
	return func() error {
		defer r.Close()
		msg, _ := io.ReadAll(r)
		if len(msg) > 0 {
			return errors.New(string(msg))
		}
		return nil
	}
}

// stopSupervisor asks a supervisor to stop its program's tree, and kills
// its group when it is stuck past Grace and stopMargin: the program dies
// with it through its own death signal.
func stopSupervisor(cmd *exec.Cmd, done <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(Grace + stopMargin):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
