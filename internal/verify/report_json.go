package verify

import (
	"context"
	"encoding/json"
)

type jsonReport struct {
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Skipped int          `json:"skipped"`
	NotRun  int          `json:"not_run,omitempty"`
	Checks  []jsonResult `json:"checks"`
}

type jsonResult struct {
	Check    string        `json:"check"`
	Status   string        `json:"status"`
	Reason   string        `json:"reason,omitempty"`
	Findings []jsonFinding `json:"findings,omitempty"`
}

type jsonFinding struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// WriteJSON writes rs as a JSON report to path (see writeReport).
func WriteJSON(ctx context.Context, path string, rs []Result) error {
	rep := jsonReport{Checks: []jsonResult{}}
	var n counts
	for _, r := range rs {
		n.add(r.Status)
		jr := jsonResult{Check: r.Check, Status: r.Status.String(), Reason: r.Reason}
		for _, f := range r.Findings {
			jr.Findings = append(jr.Findings, jsonFinding(f))
		}
		rep.Checks = append(rep.Checks, jr)
	}
	rep.Passed, rep.Failed, rep.Skipped, rep.NotRun = n.pass, n.fail, n.skip, n.notRun
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return writeReport(ctx, path, append(data, '\n'))
}

// counts are the results of each status, for the reports' totals.
type counts struct{ pass, fail, skip, notRun int }

func (c *counts) add(s Status) {
	switch s {
	case Pass:
		c.pass++
	case Fail:
		c.fail++
	case NotRun:
		c.notRun++
	default:
		c.skip++
	}
}
