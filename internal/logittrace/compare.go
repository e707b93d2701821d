package logittrace

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlxbuild/mlxbuild/internal/fail"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// DefaultDecided is the reference tool's threshold: a position whose
// reference top-two logit gap is at least this counts as decided.
const DefaultDecided = 2.0

// Bucket is one band of reference top-two gaps, [Lo, Hi).
type Bucket struct {
	Lo, Hi               float64 // Hi is +Inf for the last band
	Positions, Disagreed int
}

// buckets are the reference's bands of the top-two gap.
var buckets = []float64{0, 0.5, 1, 2, 5, 10}

// Rank is how many disagreements put the reference's top token at one rank
// of the candidate's top-k; Rank 0 means beyond the top-k.
type Rank struct {
	Rank, Count int
}

// Result is the whole comparison.
type Result struct {
	Reference, Candidate          string // the files
	RefModel, CandModel           string
	Positions                     int
	Decided                       float64 // the threshold used
	DecidedPositions              int
	Disagree, DisagreeDecided     int
	Buckets                       []Bucket
	Ranks                         []Rank // by rank, "beyond the top-k" last
	TopK                          int    // the candidate's largest k
	Worst                         int    // the worst rank seen; 0 beyond the top-k; -1 when none disagree
	Deltas                        []float64
	DeltaP50, DeltaP90, DeltaP99  float64
	DeltaMax                      float64
	PerplexityRef, PerplexityCand float64
	PerplexityChange              float64 // candidate / reference - 1
	Verdict                       Verdict
	UndecidableTopK1              int // positions with k = 1, counted as decided
}

// Verdict is the one-line answer.
type Verdict int

// The three verdicts, from best to worst.
const (
	AllAgree Verdict = iota
	UndecidedOnly
	DecidedDiffer
)

func (v Verdict) String() string {
	switch v {
	case AllAgree:
		return "every position agrees: byte-identical in effect"
	case UndecidedOnly:
		return "the traces differ only where the reference was undecided: the rounding class, not a behaviour change"
	default:
		return "the traces differ on positions the reference had decided: read the rank table before calling it noise"
	}
}

// NotComparableError says two traces are not of the same positions: a
// different count, or a different corpus token at some index.
type NotComparableError struct {
	Reference, Candidate string
	RefCount, CandCount  int
	Mismatched, First    int // token mismatches and the first index; First < 0 for a count mismatch
	RefLine, CandLine    int
}

func (e *NotComparableError) Error() string {
	if e.First < 0 {
		return fmt.Sprintf("traces not comparable: %s has %d positions and %s %d; produce both from the same corpus and chunking",
			e.Reference, e.RefCount, e.Candidate, e.CandCount)
	}
	return fmt.Sprintf("traces not comparable: they disagree about the corpus token at %s, first at index %d (%s, %s); produce both from the same corpus",
		plural.Count(e.Mismatched, "position"), e.First, fail.Pos{File: e.Reference, Line: e.RefLine}, fail.Pos{File: e.Candidate, Line: e.CandLine})
}

// Kind is configuration: traces that cannot be compared are the user's to
// fix (exit 2).
func (e *NotComparableError) Kind() fail.Kind { return fail.Config }

// Compare compares cand against ref position by position.
func Compare(ref, cand *Trace, decided float64) (*Result, error) {
	if len(ref.Rows) != len(cand.Rows) {
		return nil, &NotComparableError{Reference: ref.Name, Candidate: cand.Name, RefCount: len(ref.Rows), CandCount: len(cand.Rows), First: -1}
	}
	nc := &NotComparableError{Reference: ref.Name, Candidate: cand.Name, First: -1}
	for i := range ref.Rows {
		if ref.Rows[i].Target != cand.Rows[i].Target {
			if nc.First < 0 {
				nc.First, nc.RefLine, nc.CandLine = i, ref.Rows[i].Line, cand.Rows[i].Line
			}
			nc.Mismatched++
		}
	}
	if nc.First >= 0 {
		return nil, nc
	}
	res := &Result{Reference: ref.Name, Candidate: cand.Name, RefModel: ref.Model(), CandModel: cand.Model(),
		Positions: len(ref.Rows), Decided: decided, Worst: -1}
	for i, lo := range buckets {
		hi := math.Inf(1)
		if i+1 < len(buckets) {
			hi = buckets[i+1]
		}
		res.Buckets = append(res.Buckets, Bucket{Lo: lo, Hi: hi})
	}
	ranks := map[int]int{}
	var nllRef, nllCand float64
	for i := range ref.Rows {
		r, c := &ref.Rows[i], &cand.Rows[i]
		nllRef += r.NLL
		nllCand += c.NLL
		res.TopK = max(res.TopK, len(c.TopIDs))
		// With k = 1 there is no runner-up: the reference was as decided as
		// the trace can tell, so the gap is infinite.
		gap := math.Inf(1)
		if len(r.TopLogits) > 1 {
			gap = r.TopLogits[0] - r.TopLogits[1]
		} else {
			res.UndecidableTopK1++
		}
		top := r.TopIDs[0]
		at := slices.Index(c.TopIDs, top)
		if at >= 0 {
			res.Deltas = append(res.Deltas, math.Abs(r.TopLogits[0]-c.TopLogits[at]))
		}
		agree := c.TopIDs[0] == top
		if !agree {
			res.Disagree++
			rank := at + 1 // 0 when beyond the top-k
			ranks[rank]++
			if res.Worst != 0 && (rank == 0 || rank > res.Worst) {
				res.Worst = rank
			}
		}
		for j := range res.Buckets {
			// The last band is closed at +Inf: a k = 1 row's gap lands there.
			if b := &res.Buckets[j]; gap >= b.Lo && (gap < b.Hi || math.IsInf(b.Hi, 1)) {
				b.Positions++
				if !agree {
					b.Disagreed++
				}
				break
			}
		}
		if gap >= decided {
			res.DecidedPositions++
			if !agree {
				res.DisagreeDecided++
			}
		}
	}
	for rank, n := range ranks {
		res.Ranks = append(res.Ranks, Rank{rank, n})
	}
	slices.SortFunc(res.Ranks, func(a, b Rank) int { return rankKey(a.Rank) - rankKey(b.Rank) })
	if len(res.Deltas) > 0 {
		d := slices.Clone(res.Deltas)
		slices.Sort(d)
		q := func(p float64) float64 { return d[min(int(p*float64(len(d))), len(d)-1)] }
		res.DeltaP50, res.DeltaP90, res.DeltaP99, res.DeltaMax = q(.5), q(.9), q(.99), d[len(d)-1]
	}
	// The trace's nll column is -log p(target), positive, so perplexity is
	// exp(mean nll) (the reference once negated it and reported the inverse).
	n := float64(res.Positions)
	res.PerplexityRef, res.PerplexityCand = math.Exp(nllRef/n), math.Exp(nllCand/n)
	res.PerplexityChange = res.PerplexityCand/res.PerplexityRef - 1
	switch {
	case res.Disagree == 0:
		res.Verdict = AllAgree
	case res.DisagreeDecided == 0:
		// Every disagreement sits below the threshold, also when no position
		// reaches it (the reference tool calls that case "decided differ").
		res.Verdict = UndecidedOnly
	default:
		res.Verdict = DecidedDiffer
	}
	return res, nil
}

// rankKey orders ranks 1, 2, ... with "beyond the top-k" (0) last.
func rankKey(r int) int {
	if r == 0 {
		return math.MaxInt32
	}
	return r
}
