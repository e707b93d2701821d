package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// lockPoll is how often a waiting Lock retries. flock cannot be interrupted
// by a context, so Lock polls a non-blocking flock instead of blocking.
const lockPoll = 25 * time.Millisecond

// pidPolls is how many polls a waiter gives a new holder to write its pid
// before it says it waits for a holder it cannot name.
const pidPolls = 8

// Lock takes the exclusive lock at path, creating the file (and its
// directory) if needed, and returns the function that releases it. When
// another process holds the lock, waiting is called once with that process's
// pid and Lock waits until the lock is free or ctx ends. A holder that has
// just taken the lock has not written its pid yet: waiting is then called
// once it has, or with 0 after pidPolls tries (Holder words both).
//
// The lock is an flock(2) on the file, which the kernel drops when its holder
// dies, however it dies: a lock left by a dead process is therefore taken
// over at once, and the stale pid in the file is simply overwritten. The file
// is never removed, because removing a lock file lets two processes lock two
// different inodes of the same name.
func Lock(ctx context.Context, path string, waiting func(holderPID int)) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("cache: creating the directory of lock %s: %w; make the cache directory writable or set MLXBUILD_CACHE", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cache: opening lock %s: %w; make the cache directory writable or set MLXBUILD_CACHE", path, err)
	}
	told, polls := false, 0
	for ; ; polls++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("cache: locking %s: %w; the cache must be on a file system that supports flock", path, err)
		}
		if !told && waiting != nil {
			if pid := readPID(f); pid > 0 || polls >= pidPolls {
				waiting(pid)
				told = true
			}
		}
		select {
		case <-ctx.Done():
			holder := readPID(f)
			f.Close()
			return nil, fmt.Errorf("cache: waiting for lock %s (held by %s): %w", path, Holder(holder), ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	// Holding the lock: say who we are, for the next waiter's message,
	// writing before cutting what a dead holder left, so the file is never
	// empty while a pid was there to read.
	me := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if _, err := f.WriteAt(me, 0); err == nil {
		_ = f.Truncate(int64(len(me)))
	}
	return func() error {
		if f == nil {
			return nil
		}
		// Clear the pid before unlocking so that nobody reports a holder that
		// has already let go.
		_ = f.Truncate(0)
		uerr := syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		cerr := f.Close()
		f = nil
		if uerr != nil {
			return fmt.Errorf("cache: unlocking %s: %w", path, uerr)
		}
		return cerr
	}, nil
}

// readPID reads the holder's pid from an open lock file; 0 when the file is
// empty (the holder is between taking the lock and writing its pid) or
// holds anything but a positive number (kill(2) reads -N as a group).
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}

// Holder names a lock's holder in a message: "another mlxbuild (pid 12)",
// or "another mlxbuild" when its pid could not be read (0), never pid 0.
func Holder(pid int) string {
	if pid <= 0 {
		return "another mlxbuild"
	}
	return fmt.Sprintf("another mlxbuild (pid %d)", pid)
}
