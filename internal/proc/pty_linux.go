package proc

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
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
// Where no pseudo-terminal can be opened it leaves cmd as it was and
// returns nil: the program then writes to pipes.
func attachTerminal(cmd *exec.Cmd) *terminal {
	master, slave, err := openPTY()
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

// openPTY opens a pseudo-terminal pair: the master (non-blocking, so
// closing it ends a read in progress), and the slave with output processing
// off, so "\n" reaches the master as written and not as "\r\n".
func openPTY() (master, slave *os.File, err error) {
	m, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	closeM := func(e error) (*os.File, *os.File, error) {
		unix.Close(m)
		return nil, nil, e
	}
	if err := unix.IoctlSetPointerInt(m, unix.TIOCSPTLCK, 0); err != nil { // unlockpt
		return closeM(err)
	}
	n, err := unix.IoctlGetUint32(m, unix.TIOCGPTN) // ptsname
	if err != nil {
		return closeM(err)
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	s, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return closeM(err)
	}
	setup := func() error {
		tio, err := unix.IoctlGetTermios(s, unix.TCGETS)
		if err != nil {
			return err
		}
		tio.Oflag &^= unix.OPOST
		if err := unix.IoctlSetTermios(s, unix.TCSETS, tio); err != nil {
			return err
		}
		return unix.IoctlSetWinsize(s, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: terminalColumns})
	}
	if err := setup(); err != nil {
		unix.Close(s)
		return closeM(err)
	}
	return os.NewFile(uintptr(m), "/dev/ptmx"), os.NewFile(uintptr(s), name), nil
}
