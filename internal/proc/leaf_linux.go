package proc

import (
	"os/exec"
	"syscall"
)

// leafStarter runs the program in its own process group with SIGKILL as
// its death signal: started from a thread held for its whole life
// (startLocked), it dies when mlxbuild dies, even by SIGKILL; it starts
// nothing that could outlive it.
var leafStarter starter = deathSignalStarter{}

type deathSignalStarter struct{}

func (deathSignalStarter) command(path string, c Cmd) (*exec.Cmd, *launch, error) {
	cmd, l, err := groupStarter{}.command(path, c)
	if err == nil {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	return cmd, l, err
}
