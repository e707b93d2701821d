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

// Lock takes the exclusive lock at path, creating the file (and its
// directory) if needed, and returns the function that releases it. When
// another process holds the lock, waiting is called once with that process's
// pid (0 if it could not be read) and Lock waits until the lock is free or
// ctx ends.
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
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("cache: locking %s: %w; the cache must be on a file system that supports flock", path, err)
		}
		if !told && waiting != nil {
			waiting(readPID(f))
		}
		told = true
		select {
		case <-ctx.Done():
			holder := readPID(f)
			f.Close()
			return nil, fmt.Errorf("cache: waiting for lock %s (held by pid %d): %w", path, holder, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	// Holding the lock: say who we are, for the next waiter's message.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
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
