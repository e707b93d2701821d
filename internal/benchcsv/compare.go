package benchcsv

import (
	"fmt"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options are the comparison's rules; the zero value is not useful, start
// from DefaultOptions.
type Options struct {
	// Reference: the two sides are different runtimes (mlxcel against the
	// mlx-lm baseline), so their commits are not compared; their dates must be
	// at most MaxDateGapDays apart instead.
	Reference bool
	// AllowCommitChange: the same runtime at two commits, which is the point
	// of the comparison; without it a pair at different mlxcel_commit is
	// dropped.
	AllowCommitChange bool
	// PromptTolerance is the largest relative prompt_tokens difference a pair
	// may have (0.10: 513 against 512 pairs, 600 against 512 does not).
	PromptTolerance float64
	// MaxDateGapDays bounds the date difference in reference mode.
	MaxDateGapDays int
	// IncludeNonGenerative keeps embedders and rerankers, whose decode-loop
	// numbers are not decode rates.
	IncludeNonGenerative bool
	// MovedThreshold marks the pairs whose ratio is further than this from 1.
	MovedThreshold float64
	// Aliases maps every historical model name to the name in use now.
	Aliases map[string]string
}

// OptionsError is a pair of options that contradict each other.
type OptionsError struct{ Msg string }

// Kind is configuration: the user picked the options.
func (e *OptionsError) Kind() fail.Kind { return fail.Config }

func (e *OptionsError) Error() string { return e.Msg }

// Check refuses what the reference's tool refuses: -reference says the sides
// are two runtimes, whose commits are not comparable at all, and
// -allowCommitChange says they are one runtime at two commits; both at once
// is a mistake in the command, not a comparison.
func (o Options) Check() error {
	if o.Reference && o.AllowCommitChange {
		return &OptionsError{Msg: "-reference and -allowCommitChange exclude each other: -reference compares two runtimes by date, " +
			"-allowCommitChange one runtime at two commits; pass the one that says what the two files are"}
	}
	return nil
}

// DefaultOptions are the reference tool's defaults.
func DefaultOptions() Options {
	return Options{PromptTolerance: 0.10, MaxDateGapDays: 1, MovedThreshold: 0.10}
}

// nonGenerative holds name fragments of checkpoints a generation harness
// loads but does not meaningfully measure.
var nonGenerative = []string{"embedding", "rerank", "-embed-", "colqwen", "colsmol"}

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

// Pair is one model measured comparably on both sides.
type Pair struct {
	Model        string `json:"model"`                // the catalog's current name
	BeforeName   string `json:"before_name"`          // as written in the before file
	AfterName    string `json:"after_name"`           // as written in the after file
	PromptBefore int    `json:"prompt_tokens_before"` // the prompt lengths, within the tolerance
	PromptAfter  int    `json:"prompt_tokens_after"`
	Decode       Rate   `json:"decode_tok_s"`
	Prefill      Rate   `json:"prefill_tok_s"`
	Moved        bool   `json:"moved"` // decode ratio beyond the moved threshold
}

// Reason names why a model was left out.
type Reason string

// The reasons a model is dropped, in the order the report lists them.
const (
	NonGenerative Reason = "non-generative"
	PromptLength  Reason = "prompt length"
	CommitChange  Reason = "commit"
	DateGap       Reason = "date"
	NotMeasured   Reason = "not measured" // skipped, failed or unreadable on a side
	OneSide       Reason = "one side only"
)

// Drop is one model left out of the comparison, with what made it so.
type Drop struct {
	Model  string `json:"model"`
	Reason Reason `json:"reason"`
	// Before and After are the values that disagree (prompt lengths, commits,
	// dates; for a model not measured, "measured", a status such as
	// FAIL:bench, "unreadable: <why> (line N)", or "-" for a side without
	// the model).
	Before string `json:"before"`
	After  string `json:"after"`
}

// Summary is the distribution of the pairs' decode ratios.
type Summary struct {
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Report is the whole comparison.
type Report struct {
	Before  string   `json:"before"`
	After   string   `json:"after"`
	Harness string   `json:"harness"`
	Options Options  `json:"-"`
	Shared  int      `json:"shared"` // model names on both sides
	Pairs   []Pair   `json:"pairs"`  // by decode ratio, highest first
	Summary *Summary `json:"summary"`
	Dropped []Drop   `json:"dropped"` // by reason, then model
	// Replaced lists the rows a later row of the same model superseded, in
	// file order: they are not compared.
	Replaced []Replaced `json:"replaced"`
}

// Replaced is a row of a model that appears again later in its file (a
// re-run appended to the sweep). As the reference does, the later row that
// could be read is the one compared.
type Replaced struct {
	File     string `json:"file"`
	Model    string `json:"model"`
	Line     int    `json:"line"`      // the row left out
	KeptLine int    `json:"kept_line"` // the row compared instead
}

// Harness tells the benchmark's harness from its file name, as the reference
// does: VLM sweeps carry `_vlm_` in the name, and nothing else tells them
// apart.
func Harness(path string) string {
	if strings.Contains(filepath.Base(path), "_vlm_") {
		return "vlm"
	}
	return "text"
}

// Compare pairs before's and after's rows by model under opt. It refuses (a
// *RefusedError) only when the files come from different harnesses.
func Compare(before, after *File, opt Options) (*Report, error) {
	hb, ha := Harness(before.Name), Harness(after.Name)
	if hb != ha {
		return nil, &RefusedError{Before: before.Name, After: after.Name, BeforeHarness: hb, AfterHarness: ha}
	}
	rep := &Report{Before: before.Name, After: after.Name, Harness: ha, Options: opt, Pairs: []Pair{}, Dropped: []Drop{}, Replaced: []Replaced{}}
	bRows, aRows := byModel(before, opt.Aliases, &rep.Replaced), byModel(after, opt.Aliases, &rep.Replaced)
	names := make([]string, 0, len(bRows)+len(aRows))
	for n := range bRows {
		names = append(names, n)
	}
	for n := range aRows {
		if _, ok := bRows[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	drop := func(model string, why Reason, b, a string) {
		rep.Dropped = append(rep.Dropped, Drop{Model: model, Reason: why, Before: b, After: a})
	}
	for _, name := range names {
		b, a := bRows[name], aRows[name]
		switch {
		case b == nil && !a.Measured():
			drop(name, NotMeasured, "-", statusOf(a))
			continue
		case a == nil && !b.Measured():
			drop(name, NotMeasured, statusOf(b), "-")
			continue
		case b == nil:
			drop(name, OneSide, "-", a.Model)
			continue
		case a == nil:
			drop(name, OneSide, b.Model, "-")
			continue
		}
		rep.Shared++
		switch {
		case !opt.IncludeNonGenerative && isNonGenerative(name):
			drop(name, NonGenerative, b.Model, a.Model)
		case !b.Measured() || !a.Measured():
			drop(name, NotMeasured, statusOf(b), statusOf(a))
		case b.PromptTokens > 0 && math.Abs(float64(a.PromptTokens-b.PromptTokens))/float64(b.PromptTokens) > opt.PromptTolerance:
			drop(name, PromptLength, fmt.Sprint(b.PromptTokens), fmt.Sprint(a.PromptTokens))
		case opt.Reference && datesApart(b.Date, a.Date, opt.MaxDateGapDays):
			drop(name, DateGap, b.Date, a.Date)
		case !opt.Reference && !opt.AllowCommitChange && b.Commit != "" && a.Commit != "" && b.Commit != a.Commit:
			drop(name, CommitChange, b.Commit, a.Commit)
		case b.DecodeTokS <= 0:
			drop(name, NotMeasured, "decode 0", statusOf(a))
		default:
			p := Pair{Model: name, BeforeName: b.Model, AfterName: a.Model,
				PromptBefore: b.PromptTokens, PromptAfter: a.PromptTokens,
				Decode: rate(b.DecodeTokS, a.DecodeTokS), Prefill: rate(b.PrefillTokS, a.PrefillTokS)}
			p.Moved = math.Abs(*p.Decode.Ratio-1) > opt.MovedThreshold
			rep.Pairs = append(rep.Pairs, p)
		}
	}
	slices.SortStableFunc(rep.Pairs, func(x, y Pair) int {
		switch {
		case *x.Decode.Ratio > *y.Decode.Ratio:
			return -1
		case *x.Decode.Ratio < *y.Decode.Ratio:
			return 1
		}
		return strings.Compare(x.Model, y.Model)
	})
	order := []Reason{NonGenerative, NotMeasured, PromptLength, CommitChange, DateGap, OneSide}
	slices.SortStableFunc(rep.Dropped, func(x, y Drop) int {
		return slices.Index(order, x.Reason) - slices.Index(order, y.Reason)
	})
	rep.Summary = summarize(rep.Pairs)
	return rep, nil
}

// byModel indexes a file's rows by their current name. Of several rows of
// one model the later measured one wins (a row that cannot be compared does
// not replace one that can, as the reference skips it before keying); each
// row left out so is added to replaced.
func byModel(f *File, aliases map[string]string, replaced *[]Replaced) map[string]*Row {
	out := make(map[string]*Row, len(f.Rows))
	var order []string
	all := map[string][]*Row{}
	for i := range f.Rows {
		r := &f.Rows[i]
		name := r.Model
		if cur, ok := aliases[name]; ok {
			name = cur
		}
		if name == "" {
			name = fmt.Sprintf("(row at line %d)", r.Line)
		}
		if prev, ok := out[name]; ok && prev.Measured() && !r.Measured() {
			all[name] = append(all[name], r)
			continue
		}
		if _, ok := out[name]; !ok {
			order = append(order, name)
		}
		out[name] = r
		all[name] = append(all[name], r)
	}
	var left []Replaced
	for _, name := range order {
		for _, r := range all[name] {
			if r != out[name] {
				left = append(left, Replaced{File: f.Name, Model: r.Model, Line: r.Line, KeptLine: out[name].Line})
			}
		}
	}
	slices.SortStableFunc(left, func(x, y Replaced) int { return x.Line - y.Line })
	*replaced = append(*replaced, left...)
	return out
}

func isNonGenerative(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(nonGenerative, func(t string) bool { return strings.Contains(lower, t) })
}

// statusOf says what a side's row is, for a drop: "measured", its status, or
// why it could not be read.
func statusOf(r *Row) string {
	switch {
	case r.Status != "":
		return r.Status
	case r.Unreadable != "":
		return fmt.Sprintf("unreadable: %s (line %d)", r.Unreadable, r.Line)
	}
	return "measured"
}

// datesApart reports whether two dates (YYYY-MM-DD or RFC 3339) are more
// than days calendar days apart. A side without a date, or a date that does
// not parse, cannot be judged and is not held against the pair.
func datesApart(b, a string, days int) bool {
	tb, okb := day(b)
	ta, oka := day(a)
	if !okb || !oka {
		return false
	}
	gap := ta.Sub(tb)
	if gap < 0 {
		gap = -gap
	}
	return gap > time.Duration(days)*24*time.Hour
}

func day(s string) (time.Time, bool) {
	if len(s) < 10 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.DateOnly, s[:10])
	return t, err == nil
}

// summarize is the reference's distribution: the median, the values at n/4
// and 3n/4 of the sorted ratios, and the range.
func summarize(pairs []Pair) *Summary {
	if len(pairs) == 0 {
		return nil
	}
	r := make([]float64, len(pairs))
	for i, p := range pairs {
		r[i] = *p.Decode.Ratio
	}
	slices.Sort(r)
	n := len(r)
	med := r[n/2]
	if n%2 == 0 {
		med = (r[n/2-1] + r[n/2]) / 2
	}
	return &Summary{Median: med, Q1: r[n/4], Q3: r[(3*n)/4], Min: r[0], Max: r[n-1]}
}
