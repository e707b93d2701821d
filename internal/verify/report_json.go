package verify

import "encoding/json"

type jsonReport struct {
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Skipped int          `json:"skipped"`
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

// WriteJSON writes rs as a JSON report to path, atomically.
func WriteJSON(path string, rs []Result) error {
	rep := jsonReport{Checks: []jsonResult{}}
	for _, r := range rs {
		count(r.Status, &rep.Passed, &rep.Failed, &rep.Skipped)
		jr := jsonResult{Check: r.Check, Status: r.Status.String(), Reason: r.Reason}
		for _, f := range r.Findings {
			jr.Findings = append(jr.Findings, jsonFinding(f))
		}
		rep.Checks = append(rep.Checks, jr)
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return reportFile.Write(path, append(data, '\n'))
}

func count(s Status, pass, fail, skip *int) {
	switch s {
	case Pass:
		*pass++
	case Fail:
		*fail++
	default:
		*skip++
	}
}
