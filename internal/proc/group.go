package proc

import (
	"os/exec"
	"syscall"
	"time"
)

// groupStarter runs the program directly in its own process group: the way
// mlxbuild stops programs where there is no supervisor (macOS). A stop sends
// SIGTERM to the program, and SIGKILL to its group after Grace; children
// that made their own group (Ninja's jobs) are out of its reach, which is
// why Linux uses the supervisor.
type groupStarter struct{}

func (groupStarter) command(path string, c Cmd) (*exec.Cmd, *launch, error) {
	cmd := exec.Command(path, c.Args...)
	cmd.Env = c.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, &launch{stop: func(cmd *exec.Cmd, done <-chan struct{}) {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(Grace):
		}
		// The negative pid names the group; it still holds what the
		// program left running even after the program itself exited.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}}, nil
}
