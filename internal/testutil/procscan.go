package testutil

import (
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/procscan"
)

// Marked lists the living processes whose environment holds the variable
// assignment marker (procscan.Marked): a test sets the variable on what it
// starts, and every descendant inherits it, whoever its parent is now.
func Marked(marker string) []int { return procscan.Marked(marker) }

// Describe renders pids with their command lines, for a failure message.
func Describe(pids []int) string { return procscan.Describe(pids) }

// WaitMarked polls until at least n marked processes live, failing after bound.
func WaitMarked(t testing.TB, marker string, n int, bound time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		pids := Marked(marker)
		if len(pids) >= n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, %d processes carry %s, want at least %d: %s", bound, len(pids), marker, n, Describe(pids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NoneMarkedWithin polls until no marked process lives and returns how long
// that took, failing (with what survived) after bound.
func NoneMarkedWithin(t testing.TB, marker string, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		pids := Marked(marker)
		if len(pids) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > bound {
			t.Fatalf("%d processes carrying %s outlived the stop by %s: %s", len(pids), marker, bound, Describe(pids))
		}
		time.Sleep(20 * time.Millisecond)
	}
}
