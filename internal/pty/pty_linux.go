// Package pty opens pseudo-terminals: a program whose output is a person's
// terminal is run on one (Ninja prints each edge as it starts only there),
// and tests use one as the person's terminal.
package pty

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Open opens a pseudo-terminal pair of the given size: the master
// (non-blocking, so closing it ends a read in progress; a read fails with
// EIO once every copy of the slave is closed), and the slave with output
// processing off, so "\n" reaches the master as written and not as "\r\n".
// Both are close-on-exec; neither becomes a controlling terminal.
func Open(cols, rows uint16) (master, slave *os.File, err error) {
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
		return resize(s, cols, rows)
	}
	if err := setup(); err != nil {
		unix.Close(s)
		return closeM(err)
	}
	return os.NewFile(uintptr(m), "/dev/ptmx"), os.NewFile(uintptr(s), name), nil
}

// Resize sets the size a terminal reports (TIOCGWINSZ), as a window
// resized by its user would.
func Resize(f *os.File, cols, rows uint16) error { return resize(int(f.Fd()), cols, rows) }

func resize(fd int, cols, rows uint16) error {
	return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
}
