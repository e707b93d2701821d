//go:build unix

package proc

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
)

// Exec replaces this process with the program (looked up on PATH when path
// has no slash), argv[0] and all, in env. It returns only when the program
// could not be started. A launcher that stands in front of a command uses it
// so that the command is the very process Ninja waits for and stops: its
// exit status, its signals and its process group are Ninja's, with no
// process of mlxbuild in between.
func Exec(path string, argv, env []string) error {
	if !strings.Contains(path, "/") {
		found, err := exec.LookPath(path)
		if err != nil {
			return err
		}
		path = found
	}
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}
