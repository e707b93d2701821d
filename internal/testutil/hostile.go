package testutil

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// InputsThatNeverEnd are paths whose reading never ends or blocks for
// ever when read as a file: a FIFO no process writes (its open waits for
// a writer), and /dev/zero (endless). Every file a user names must be
// refused when it is one of them. Nothing writes to the FIFO.
func InputsThatNeverEnd(t testing.TB) map[string]string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "input.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"FIFO": fifo, "/dev/zero": "/dev/zero"}
}

// SparseFile is a file of size bytes that takes no space (holes), to hold
// a reader to its size bound.
func SparseFile(t testing.TB, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "large")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// Returns runs fn and gives its error, failing t instead when fn is still
// blocked as the test's deadline (go test -timeout) nears: a guard that
// turns a hang into a failure that says so, not a timing assertion (a slow
// machine only waits longer). Without a deadline it waits as long as fn
// does.
func Returns(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	deadline, ok := t.Deadline()
	if !ok {
		return <-done
	}
	guard := time.NewTimer(time.Until(deadline) * 9 / 10)
	defer guard.Stop()
	select {
	case err := <-done:
		return err
	case <-guard.C:
		t.Fatalf("%s is still blocked at the test's deadline: it hangs", what)
		return nil
	}
}

// RefusesInputsThatNeverEnd calls read with a FIFO, /dev/zero and a file
// of limit+1 bytes, each in a subtest under the Returns guard, and checks
// that each is refused with a configuration error naming the file (read
// returns the name the user gave it: the path, or a link to it) and every
// one of names (the variable or argument to change).
func RefusesInputsThatNeverEnd(t *testing.T, limit int64, read func(t *testing.T, path string) (file string, err error), names ...string) {
	t.Helper()
	inputs := InputsThatNeverEnd(t)
	inputs["over the bound"] = SparseFile(t, limit+1)
	for name, path := range inputs {
		t.Run(name, func(t *testing.T) {
			var file string
			err := Returns(t, "reading "+path, func() (err error) {
				file, err = read(t, path)
				return err
			})
			if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), file) {
				t.Fatalf("err = %v, want a configuration error naming %s", err, file)
			}
			for _, n := range names {
				if !strings.Contains(err.Error(), n) {
					t.Errorf("err = %v, want it to name %s", err, n)
				}
			}
		})
	}
}
