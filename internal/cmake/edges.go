package cmake

import (
	"slices"
	"strconv"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// statusPrefix is put in front of every line Ninja prints for an edge
// (through NINJA_STATUS), so status lines cannot be confused with compiler
// output that happens to start with "[".
const statusPrefix = "[mlxbuild "

// ninjaStatus is the NINJA_STATUS value: finished and total edges, then
// started and running ones, which tell an edge's start from its finish
// (statusLine.starts).
const ninjaStatus = statusPrefix + "%f/%t s%s r%r] "

// statusRe reads a status line; the started and running counts are
// optional, so output recorded with the older "%f/%t" reads as before.
var statusRe = lazyregexp.New(`^\[mlxbuild (\d+)/(\d+)(?: s(\d+) r(\d+))?\] (.*)$`)

// statusLine is one status line of Ninja's.
type statusLine struct {
	finished, total  int
	started, running int
	counts           bool // started and running were printed
	step             Step
}

func parseStatus(line string) (statusLine, bool) {
	m := statusRe.FindStringSubmatch(line)
	if m == nil {
		return statusLine{}, false
	}
	l := statusLine{step: parseStep(m[5]), counts: m[3] != ""}
	l.finished, _ = strconv.Atoi(m[1])
	l.total, _ = strconv.Atoi(m[2])
	l.started, _ = strconv.Atoi(m[3])
	l.running, _ = strconv.Atoi(m[4])
	return l, true
}

// starts reports a line printed as the edge started. Ninja (1.11 to 1.13,
// status_printer.cc) prints an edge's status at its start, only on a
// terminal, after counting it started and running: started-finished ==
// running. It prints it at the finish after counting it finished and before
// it stops counting it running: started-finished == running-1. A line
// without the counts is a finish (on a pipe Ninja prints only those).
func (l statusLine) starts() bool {
	return l.counts && l.started-l.finished == l.running
}

// runningEdges are the edges Ninja runs now, in the order they started.
type runningEdges []Step

// update follows one status line. Ninja's running count is the truth:
// while a console job runs Ninja holds status lines back and prints only
// the last, so an edge whose finish was not seen is dropped, oldest first,
// when the count says fewer run.
func (r runningEdges) update(l statusLine) runningEdges {
	if l.starts() {
		r = append(r, l.step)
	} else {
		for i, s := range r {
			if s == l.step {
				r = slices.Delete(r, i, i+1)
				break
			}
		}
	}
	if !l.counts {
		return r
	}
	want := l.running
	if !l.starts() {
		want-- // the finishing edge was still counted
	}
	if over := len(r) - max(want, 0); over > 0 {
		r = r[over:]
	}
	return r
}
