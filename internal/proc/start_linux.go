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
	env = withoutVar(env, superviseEnv)
	env = append(env, superviseEnv+"="+strconv.FormatInt(Grace.Milliseconds(), 10))
	cmd := &exec.Cmd{
		Path:       self,
		Args:       append([]string{superviseArg0, path}, c.Args...),
		Env:        env,
		ExtraFiles: []*os.File{w}, // fd 3: why the program could not start, or EOF once it did
		// SIGTERM, not SIGKILL: the supervisor must live on to stop the tree.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM},
	}
	l := &launch{closeAfterStart: []io.Closer{w}}
	l.confirm = func() error {
		defer r.Close()
		msg, _ := io.ReadAll(r)
		if len(msg) > 0 {
			return errors.New(string(msg))
		}
		return nil
	}
	l.stop = func(cmd *exec.Cmd, done <-chan struct{}) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(Grace + stopMargin):
			// The supervisor is stuck: kill its group; the program dies
			// with it through its own death signal.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	return cmd, l, nil
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
