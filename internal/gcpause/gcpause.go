// Package gcpause turns the garbage collector off while a short-lived run
// does work that allocates mostly what it keeps.
//
// A no-op overlay:apply of a large tree allocates its manifest (about 130
// bytes an entry, all live until the end) and little garbage: every
// collection during it marks the whole manifest and frees almost nothing
// (one cycle of about 4 ms at 100k files, 4% of the run). Pausing the
// collector for the run, with a memory limit as a safety net, saves that and
// keeps the peak RSS where it was, since the collections freed nothing.
package gcpause

import (
	"runtime"
	"runtime/debug"
	"sync"
)

var (
	mu      sync.Mutex
	depth   int   // pauses in force
	percent int   // GOGC before the first of them
	limit   int64 // the memory limit before the first of them
)

// For turns the collector off (debug.SetGCPercent(-1)) and sets the memory
// limit to what the Go runtime holds now plus headroom, so a run that needs
// more memory than expected still collects rather than growing without
// bound, and a process that already holds much (a test binary calling the
// flows in-process) is not pushed into collecting without end. It keeps a
// lower limit already set (GOMEMLIMIT) and keeps GOGC=off. The returned
// func restores both; nested and concurrent pauses share one, and the last
// to end restores what the first found.
func For(headroom int64) (resume func()) {
	mu.Lock()
	defer mu.Unlock()
	if depth == 0 {
		limit = debug.SetMemoryLimit(-1) // -1 reads it
		percent = debug.SetGCPercent(-1)
		if want := held() + headroom; want < limit {
			debug.SetMemoryLimit(want)
		}
	}
	depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			defer mu.Unlock()
			depth--
			if depth == 0 {
				debug.SetMemoryLimit(limit)
				debug.SetGCPercent(percent)
			}
		})
	}
}

// held is the memory the Go runtime holds from the system now (heap,
// stacks, its own structures): what the memory limit counts. ReadMemStats
// stops the world for some microseconds; runtime/metrics would not, but
// its package initialization costs every start of the binary more (0.09 ms
// and 95 allocations) than a pause saves on a small tree.
func held() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.Sys)
}
