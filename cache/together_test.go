package cache

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestFirstBuildsTogetherAllOpenTheCache: N runs open the same fresh cache
// at once (two `cargo build`s, an editor's language server beside a
// terminal): each makes the root and its tag, its backend's directory and
// takes the lock in turn; none may find the other's half-made root
// "not mlxbuild's cache". Many rounds, a fresh root each, so the
// interleavings vary; the run is not timed.
func TestFirstBuildsTogetherAllOpenTheCache(t *testing.T) {
	const runs, rounds = 4, 300
	base := t.TempDir()
	project := t.TempDir()
	for round := range rounds {
		root := filepath.Join(base, fmt.Sprint(round), "target", "mlxbuild")
		var wg sync.WaitGroup
		errs := make(chan error, runs)
		start := make(chan struct{})
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				backend := []string{"cpu", "rocm"}[i%2]
				l := For(root, backend)
				if err := Prepare(l, project); err != nil {
					errs <- err
					return
				}
				unlock, err := Lock(context.Background(), l.Lock, nil)
				if err != nil {
					errs <- err
					return
				}
				errs <- unlock()
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
