package overlays

import "sync"

// dirJob is one directory of the tree still to bring in line.
type dirJob struct {
	rel                   string
	inPristine, inOverlay bool
	old                   oldCursor // its part of the old manifest
}

// dirQueue hands directories to a fixed set of workers. A goroutine per
// directory cost a start and a stack that grew afresh each time; the
// workers' stacks grow once. Jobs are taken last in,
// first out, so the walk goes deep first and few directories wait at once.
type dirQueue struct {
	mu      sync.Mutex
	more    sync.Cond // signalled when a job arrives or the last one ends
	jobs    []dirJob
	pending int // queued or running
}

func (q *dirQueue) push(j dirJob) {
	q.mu.Lock()
	q.jobs = append(q.jobs, j)
	q.pending++
	q.mu.Unlock()
	q.more.Signal()
}

// run works on jobs with n workers (the caller's goroutine among them)
// until none is queued or running; do's jobs may push more.
func (q *dirQueue) run(n int, do func(dirJob)) {
	q.more.L = &q.mu
	var wg sync.WaitGroup
	for range max(1, n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q.work(do)
		}()
	}
	q.work(do)
	wg.Wait()
}

func (q *dirQueue) work(do func(dirJob)) {
	q.mu.Lock()
	for {
		for len(q.jobs) == 0 && q.pending > 0 {
			q.more.Wait()
		}
		if q.pending == 0 {
			q.mu.Unlock()
			q.more.Broadcast() // wake the others, so they see it too
			return
		}
		j := q.jobs[len(q.jobs)-1]
		q.jobs = q.jobs[:len(q.jobs)-1]
		q.mu.Unlock()
		do(j)
		q.mu.Lock()
		q.pending--
	}
}
