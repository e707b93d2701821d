package benchcsv

import (
	"fmt"
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
	NotMeasured   Reason = "not measured"
	OneSide       Reason = "one side only"
)

// Drop is one model left out of the comparison, with what made it so.
type Drop struct {
	Model  string `json:"model"`
	Reason Reason `json:"reason"`
	// Before and After are the values that disagree (prompt lengths, commits,
	// dates, a status such as FAIL:bench, or "-" for the side that lacks it).
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
	rep := &Report{Before: before.Name, After: after.Name, Harness: ha, Options: opt, Pairs: []Pair{}, Dropped: []Drop{}}
	bRows, aRows := byModel(before, opt.Aliases), byModel(after, opt.Aliases)
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

// byModel indexes a file's rows by their current name.
func byModel(f *File, aliases map[string]string) map[string]*Row {
	out := make(map[string]*Row, len(f.Rows))
	for i := range f.Rows {
		name := f.Rows[i].Model
		if cur, ok := aliases[name]; ok {
			name = cur
		}
		out[name] = &f.Rows[i]
	}
	return out
}

func isNonGenerative(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(nonGenerative, func(t string) bool { return strings.Contains(lower, t) })
}

func statusOf(r *Row) string {
	if r.Status == "" {
		return "measured"
	}
	return r.Status
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
