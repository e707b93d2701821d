package proc

import (
	"os/exec"
	"runtime"
)

// startLocked starts cmd from a goroutine locked to its OS thread, and keeps
// it locked until the program was waited for. Linux sends a child's death
// signal (PR_SET_PDEATHSIG) when the *thread* that forked it exits, not the
// process (see the SysProcAttr.Pdeathsig docs and golang/go#27505). Go ends
// a thread only when a goroutine exits while locked to it; holding the lock
// for the child's whole life keeps the forking thread alive and keeps every
// other goroutine off it, so the signal fires exactly when mlxbuild dies.
func startLocked(cmd *exec.Cmd) (started, waited <-chan error) {
	s, w := make(chan error, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			s <- err
			return
		}
		s <- nil
		w <- cmd.Wait()
	}()
	return s, w
}
