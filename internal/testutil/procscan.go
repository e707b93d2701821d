package testutil

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Marked lists the living processes whose environment holds the variable
// assignment marker (e.g. "MLXBUILD_TEST_RUN=<unique>"), read from
// /proc/<pid>/environ: a test sets the variable on what it starts, and every
// descendant inherits it, whoever its parent is now. Zombies do not count.
func Marked(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+marker+"\x00")) {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && (st[i+2] == 'Z' || st[i+2] == 'X') {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// Describe renders pids with their command lines, for a failure message.
func Describe(pids []int) string {
	var parts []string
	for _, p := range pids {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
		parts = append(parts, strconv.Itoa(p)+" "+strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))))
	}
	return strings.Join(parts, "; ")
}

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
