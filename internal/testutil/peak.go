package testutil

import (
	"sync"
	"time"
)

// SamplePeak calls count every 5 ms until stop is called, and stop returns
// the highest count that held over two samples in a row, with what count
// said at it: a process that is exiting while the next one starts can be
// read as alive in one sample under load, while a job that really runs
// beside the others lasts many samples. count runs on one goroutine, and
// stop returns after its last call.
func SamplePeak(count func() (int, string)) (stop func() (peak int, at string)) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak, prev int
	var at string
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			n, what := count()
			if held := min(n, prev); held > peak {
				peak, at = held, what
			}
			prev = n
		}
	}()
	return func() (int, string) {
		close(done)
		wg.Wait()
		return peak, at
	}
}
