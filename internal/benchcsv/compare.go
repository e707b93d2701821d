package benchcsv

import (
	"strconv"
	"strings"
)

// Rate is one metric before and after; Ratio is After/Before, nil when
// Before is zero (a ratio to nothing means nothing).
type Rate struct {
	Before float64  `json:"before"`
	After  float64  `json:"after"`
	Ratio  *float64 `json:"ratio"`
}

func rate(before, after float64) Rate {
	r := Rate{Before: before, After: after}
	if before > 0 {
		x := after / before
		r.Ratio = &x
	}
	return r
}

// ModelResult is one model measured in both files.
type ModelResult struct {
	Model        string `json:"model"`
	PromptTokens int    `json:"prompt_tokens"`
	Hardware     string `json:"hardware"`
	BuildType    string `json:"build_type"`
	Decode       Rate   `json:"decode_tok_s"`
	Prefill      Rate   `json:"prefill_tok_s"`
	// BeforeCommit and AfterCommit are the mlxcel_commit columns, when present.
	BeforeCommit string `json:"before_mlxcel_commit,omitempty"`
	AfterCommit  string `json:"after_mlxcel_commit,omitempty"`
}

// Report is the whole comparison.
type Report struct {
	Before     string        `json:"before"`
	After      string        `json:"after"`
	Models     []ModelResult `json:"models"`      // in the before file's order
	OnlyBefore []string      `json:"only_before"` // models missing from the after file
	OnlyAfter  []string      `json:"only_after"`  // models missing from the before file
}

// Compare matches before's and after's rows by model. It returns a
// *RefusedError when the files share no model or when a shared model was
// measured with a different prompt_tokens, hardware or build_type; every
// such mismatch is listed, not only the first.
func Compare(before, after *File) (*Report, error) {
	byModel := make(map[string]*Row, len(after.Rows))
	for i := range after.Rows {
		byModel[after.Rows[i].Model] = &after.Rows[i]
	}
	rep := &Report{Before: before.Name, After: after.Name, Models: []ModelResult{}, OnlyBefore: []string{}, OnlyAfter: []string{}}
	var mismatches []Mismatch
	matched := map[string]bool{}
	for i := range before.Rows {
		b := &before.Rows[i]
		a, ok := byModel[b.Model]
		if !ok {
			rep.OnlyBefore = append(rep.OnlyBefore, b.Model)
			continue
		}
		matched[b.Model] = true
		mismatches = append(mismatches, conditions(b, a)...)
		rep.Models = append(rep.Models, ModelResult{
			Model: b.Model, PromptTokens: b.PromptTokens, Hardware: b.Hardware, BuildType: b.BuildType,
			Decode:       rate(b.DecodeTokS, a.DecodeTokS),
			Prefill:      rate(b.PrefillTokS, a.PrefillTokS),
			BeforeCommit: b.Values["mlxcel_commit"], AfterCommit: a.Values["mlxcel_commit"],
		})
	}
	for _, a := range after.Rows {
		if !matched[a.Model] {
			rep.OnlyAfter = append(rep.OnlyAfter, a.Model)
		}
	}
	if len(mismatches) > 0 || len(rep.Models) == 0 {
		return nil, &RefusedError{Before: before.Name, After: after.Name, Mismatches: mismatches}
	}
	return rep, nil
}

// conditions lists what differs between two measurements of one model.
func conditions(b, a *Row) []Mismatch {
	var out []Mismatch
	add := func(col, bv, av string) {
		out = append(out, Mismatch{Model: b.Model, Column: col, Before: bv, After: av, BeforeLine: b.Line, AfterLine: a.Line})
	}
	if b.PromptTokens != a.PromptTokens {
		add("prompt_tokens", strconv.Itoa(b.PromptTokens), strconv.Itoa(a.PromptTokens))
	}
	if b.Hardware != a.Hardware {
		add("hardware", b.Hardware, a.Hardware)
	}
	// CMake matches build types case-insensitively: Release and release are one build.
	if !strings.EqualFold(b.BuildType, a.BuildType) {
		add("build_type", b.BuildType, a.BuildType)
	}
	return out
}
