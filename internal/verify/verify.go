// Package verify holds the checks behind `verify:<backend>`, the CI gate of a
// backend build: overlay records and integrity, kernel source rules, backend
// isolation and link checks. Each check is a small struct whose exported
// fields, with yaml tags, are its configuration in the project file; Run runs
// a list of them and the Write functions report the results for a person
// (WriteText) or a CI system (WriteJUnit, WriteJSON).
//
// A check never returns an error: a defect in the sources is a Finding with
// the file and line and what to do, and a check that cannot run (an input
// that does not exist yet) is skipped with the reason.
package verify

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Status is the outcome of one check.
type Status int

// The outcomes of a check. NotRun is a check the gate needed but that could
// not run (the build it reads failed): it fails the gate, unlike Skip, a
// check that does not apply.
const (
	Pass Status = iota
	Fail
	Skip
	NotRun
)

// String gives the status as the reports write it.
func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "fail"
	case Skip:
		return "skip"
	case NotRun:
		return "not-run"
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Finding is one defect a check found.
type Finding struct {
	File    string // the file to open; empty when the finding concerns no file
	Line    int    // 1-based; 0 when it concerns the whole file
	Message string // what is wrong
	Fix     string // what to do about it
}

// Location renders "file:line", "file" or "".
func (f Finding) Location() string {
	return fail.Pos{File: f.File, Line: f.Line}.String()
}

// Result is the outcome of one check.
type Result struct {
	Check    string
	Status   Status
	Reason   string // why it was skipped, or a one-line summary
	Findings []Finding
}

// Check is one verification.
type Check interface {
	Name() string
	Run(ctx context.Context) Result
}

// Run runs checks in order and returns one Result each. A check that panics
// fails with the panic as its finding rather than stopping the others, and
// checks not yet started when ctx ends are skipped.
func Run(ctx context.Context, checks []Check) []Result {
	rs := make([]Result, 0, len(checks))
	for _, c := range checks {
		if err := ctx.Err(); err != nil {
			rs = append(rs, Result{Check: c.Name(), Status: Skip, Reason: "not run: " + err.Error()})
			continue
		}
		rs = append(rs, runOne(ctx, c))
	}
	return rs
}

func runOne(ctx context.Context, c Check) (r Result) {
	defer func() {
		if p := recover(); p != nil {
			r = Result{Check: c.Name(), Status: Fail, Reason: "the check crashed",
				Findings: []Finding{{Message: fmt.Sprintf("panic: %v\n%s", p, debug.Stack()),
					Fix: "this is a bug in mlxbuild; report it with this output"}}}
		}
	}()
	r = c.Run(ctx)
	if r.Check == "" {
		r.Check = c.Name()
	}
	return r
}

// Failed reports whether any result failed or was not run.
func Failed(rs []Result) bool {
	for _, r := range rs {
		if r.Status == Fail || r.Status == NotRun {
			return true
		}
	}
	return false
}

// result builds a check's Result from its findings: Fail when there are
// any, Pass otherwise, with summary as the Reason.
func result(name string, findings []Finding, summary string) Result {
	if len(findings) > 0 {
		return Result{Check: name, Status: Fail, Reason: summary, Findings: findings}
	}
	return Result{Check: name, Status: Pass, Reason: summary}
}

// skipped builds a skipped Result.
func skipped(name, reason string) Result {
	return Result{Check: name, Status: Skip, Reason: reason}
}

// Fixed is a check whose result is known before it runs: one that does not
// apply (Skip) or that the gate could not run (NotRun), with the reason.
type Fixed struct {
	Check  string
	Status Status
	Reason string
}

// Name is the check's name in reports.
func (f Fixed) Name() string { return f.Check }

// Run returns the fixed result.
func (f Fixed) Run(context.Context) Result {
	return Result{Check: f.Check, Status: f.Status, Reason: f.Reason}
}
