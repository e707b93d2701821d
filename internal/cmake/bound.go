package cmake

import (
	"fmt"
	"runtime"
	"time"
)

// Bound is how close a build came to the shortest it could have taken
// with its jobs: no schedule beats its longest chain of edges, nor its
// edges' time summed over the jobs.
type Bound struct {
	Wall  time.Duration // from the first edge's start to the last one's end
	Chain time.Duration // the longest chain of the edges that ran, by their own times
	Sum   time.Duration // every edge's time, summed
	Jobs  int
}

// Lower is the bound itself: max(longest chain, sum / jobs).
func (b Bound) Lower() time.Duration {
	if b.Jobs <= 0 {
		return b.Chain
	}
	return max(b.Chain, b.Sum/time.Duration(b.Jobs))
}

// Ratio is the wall time over the bound; 0 when there is no bound.
func (b Bound) Ratio() float64 {
	if b.Lower() <= 0 {
		return 0
	}
	return float64(b.Wall) / float64(b.Lower())
}

// String is the terse closing line: "bound: 1.04x of 332s (longest chain)".
func (b Bound) String() string {
	what := "cpu sum / " + fmt.Sprint(b.Jobs) + " jobs"
	if b.Chain >= b.Sum/time.Duration(max(b.Jobs, 1)) {
		what = "longest chain"
	}
	return fmt.Sprintf("bound: %.2fx of %s (%s)", b.Ratio(), seconds(b.Lower()), what)
}

// seconds writes a time the way build lines do: "332s", "4.2s", "12ms".
func seconds(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0fs", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}

// boundOf computes a run's bound from its .ninja_log entries (one Ninja
// run's: their times share one origin) and the manifest's graph, which
// gives the chains. Entries of edges the manifest does not have count
// alone.
func boundOf(entries []logEntry, items []manifestItem, jobs int) Bound {
	b := Bound{Jobs: jobs}
	if len(entries) == 0 {
		return b
	}
	took := Durations{}
	type edgeRun struct {
		start, end int64
		hash       string
	}
	counted := map[edgeRun]bool{} // an edge's time is summed once, not once per output line
	first, last := entries[0].start, entries[0].end
	for _, e := range entries {
		took[e.output] = e.took()
		if run := (edgeRun{e.start, e.end, e.hash}); !counted[run] {
			counted[run] = true
			b.Sum += e.took()
		}
		first, last = min(first, e.start), max(last, e.end)
		b.Chain = max(b.Chain, e.took())
	}
	b.Wall = time.Duration(last-first) * time.Millisecond
	ran := make([]manifestItem, 0, len(items))
	for _, it := range items {
		if !it.build || it.phony || ranAny(it, took) {
			ran = append(ran, it)
		} else {
			c := it
			c.phony = true // up to date: it takes nothing this time
			ran = append(ran, c)
		}
	}
	// the median guess only fills edges that ran unlogged, rare enough
	for _, c := range chains(ran, took) {
		b.Chain = max(b.Chain, c)
	}
	return b
}

func ranAny(it manifestItem, took Durations) bool {
	for _, o := range it.outs {
		if _, ok := took[o]; ok {
			return true
		}
	}
	return false
}

// jobsOrDefault is the -j Ninja ran with: its own default, cores + 2, when
// none was given.
func jobsOrDefault(jobs int) int {
	if jobs > 0 {
		return jobs
	}
	return runtime.NumCPU() + 2
}
