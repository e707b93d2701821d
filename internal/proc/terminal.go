package proc

import (
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/pty"
)

// terminalColumns is the width the pseudo-terminal reports. It is wide so a
// program that fits its output to the terminal (Ninja elides its status
// lines to it) cuts nothing: the caller lays out what it shows itself.
const terminalColumns = 4096

// terminal is a pseudo-terminal a program writes its stdout and stderr to.
// Its master side is read into the sink the pipes would have fed.
type terminal struct {
	master *os.File
	slave  *os.File // this process's copy, closed once the program has its own
	copied chan struct{}
}

// attachTerminal gives cmd a pseudo-terminal as stdout and stderr, copying
// what the program writes to the writer cmd.Stdout held (it then holds the
// two streams in the order they were written, as a person would see them).
// Where no pseudo-terminal can be opened (off Linux, or none is free) it
// leaves cmd as it was and returns nil: the program then writes to pipes.
func attachTerminal(cmd *exec.Cmd) *terminal {
	master, slave, err := pty.Open(terminalColumns, 24)
	if err != nil {
		return nil
	}
	t := &terminal{master: master, slave: slave, copied: make(chan struct{})}
	sink := cmd.Stdout
	cmd.Stdout, cmd.Stderr = slave, slave
	go t.copy(sink)
	return t
}

// copy reads the master until every holder of the slave closed it (read
// then fails with EIO on Linux: the normal end) or drain closed the master.
// A sink that fails is dropped, not the reading: a full terminal would
// block the program.
func (t *terminal) copy(sink io.Writer) {
	defer close(t.copied)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.master.Read(buf)
		if n > 0 && sink != nil {
			if _, werr := sink.Write(buf[:n]); werr != nil {
				sink = nil
			}
		}
		if err != nil {
			return
		}
	}
}

// started closes this process's copy of the slave, so the master sees the
// end when the program and its children are done with it.
func (t *terminal) started() {
	if t != nil {
		t.slave.Close()
	}
}

// drain waits for what the program wrote to be copied, at most outputDelay
// after it exited (a daemon it left behind may hold the terminal open, as it
// would hold a pipe), then closes the master.
func (t *terminal) drain() {
	if t == nil {
		return
	}
	t.slave.Close() // a program that never started leaves the copy here
	select {
	case <-t.copied:
	case <-time.After(outputDelay):
	}
	t.master.Close() // the master is non-blocking: this ends a pending read
	<-t.copied
}
