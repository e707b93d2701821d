package cache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockNeverNamesPidZero: a holder that has taken the lock but not yet
// written its pid (the moment right after its flock) is not reported as
// "pid 0". A waiter gives it pidPolls polls to write it; one that gives
// up before (a deadline) names no pid, and one that waits longer says it
// waits for a holder it cannot name.
func TestLockNeverNamesPidZero(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu", "lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Another open file description: flock conflicts with it as with
	// another process, and the file stays empty (no pid yet).
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	var reported []int
	// Fewer than pidPolls polls fit in the deadline (each waits lockPoll).
	ctx, cancel := context.WithTimeout(context.Background(), lockPoll*pidPolls/2)
	defer cancel()
	_, err = Lock(ctx, path, func(pid int) { reported = append(reported, pid) })
	if err == nil || strings.Contains(err.Error(), "pid 0") || !strings.Contains(err.Error(), "held by another mlxbuild)") {
		t.Errorf("a waiter that gave up: %v, want it held by another mlxbuild, without a pid", err)
	}
	if len(reported) != 0 {
		t.Errorf("waiting was told pid %v before the holder could write one", reported)
	}

	told := make(chan int, 2)
	got := make(chan error, 1)
	go func() {
		unlock, err := Lock(context.Background(), path, func(pid int) { told <- pid })
		if err == nil {
			err = unlock()
		}
		got <- err
	}()
	// The waiter tells once, after its pidPolls polls; then the holder
	// lets go.
	select {
	case pid := <-told:
		if Holder(pid) != "another mlxbuild" {
			t.Errorf("waiting was told pid %d of a holder that wrote none; Holder says %q", pid, Holder(pid))
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiter never said it waits")
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if len(told) != 0 {
		t.Errorf("waiting was told more than once: %d", <-told)
	}
	if Holder(12) != "another mlxbuild (pid 12)" {
		t.Errorf("Holder(12) = %q", Holder(12))
	}
}
