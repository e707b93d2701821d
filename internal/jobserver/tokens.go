package jobserver

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"syscall"
)

// Tokens are the tokens taken from one jobserver, to be written back once,
// byte for byte (a server may tell its tokens apart).
type Tokens struct {
	mu    sync.Mutex
	taken []byte
	write int // where they go back: the pipe's write end, or the fifo
	close []int
}

// Take takes up to max tokens that the jobserver holds now, without waiting
// for one: a build that cannot wait (Ninja 1.11 is no jobserver client, so
// its -j is fixed when it starts) runs with the implicit token and what is
// free. Its own descriptor of the pipe or fifo is non-blocking; the
// inherited ones stay as they are, since their blocking mode is shared
// with every process that holds them.
func Take(a Auth, max int) (*Tokens, error) {
	t := &Tokens{}
	var rd int
	var err error
	if a.Fifo != "" {
		// Read and write: opening it cannot block, and the tokens go back
		// through the same descriptor.
		rd, err = syscall.Open(a.Fifo, syscall.O_RDWR|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open the jobserver's fifo %s: %w", a.Fifo, err)
		}
		t.write, t.close = rd, []int{rd}
	} else {
		// A new open file description of the same pipe: only this one is
		// non-blocking.
		path := "/proc/self/fd/" + strconv.Itoa(a.R)
		rd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open the jobserver's read end (fd %d) as %s: %w; a make recipe that runs mlxbuild needs the + prefix to pass its jobserver on", a.R, path, err)
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(a.W, &st); err != nil {
			syscall.Close(rd)
			return nil, fmt.Errorf("the jobserver's write end (fd %d) is not open: %w", a.W, err)
		}
		t.write, t.close = a.W, []int{rd}
	}
	buf := make([]byte, 1)
	for len(t.taken) < max {
		n, err := syscall.Read(rd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if n == 1 {
			t.taken = append(t.taken, buf[0])
			continue
		}
		if err == nil || errors.Is(err, syscall.EAGAIN) {
			break // empty (or every writer gone): no token free now
		}
		rerr := t.Release()
		return nil, errors.Join(fmt.Errorf("read a token from the jobserver %s: %w", a, err), rerr)
	}
	if a.Fifo == "" {
		syscall.Close(rd)
		t.close = nil
	}
	return t, nil
}

// Count is the number of tokens taken.
func (t *Tokens) Count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.taken)
}

// Release writes every token back; a second call does nothing.
func (t *Tokens) Release() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var err error
	for len(t.taken) > 0 {
		n, werr := syscall.Write(t.write, t.taken)
		if errors.Is(werr, syscall.EINTR) {
			continue
		}
		if werr != nil {
			err = fmt.Errorf("give %d tokens back to the jobserver: %w", len(t.taken), werr)
			break
		}
		t.taken = t.taken[n:]
	}
	for _, fd := range t.close {
		syscall.Close(fd)
	}
	t.close = nil
	return err
}
