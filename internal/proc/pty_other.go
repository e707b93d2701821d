//go:build !linux

package proc

import "os/exec"

// terminal: only Linux gives programs a pseudo-terminal here; elsewhere
// they write to pipes, as Cmd.Terminal documents.
type terminal struct{}

func attachTerminal(*exec.Cmd) *terminal { return nil }

func (*terminal) started() {}

func (*terminal) drain() {}
