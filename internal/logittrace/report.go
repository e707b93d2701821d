package logittrace

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// Run is bench:traces: it loads both traces, compares them with the decided
// threshold and writes the report to w.
func Run(ctx context.Context, w io.Writer, refPath, candPath string, decided float64) error {
	if decided < 0 || math.IsNaN(decided) || math.IsInf(decided, 0) {
		return &InputError{File: "-decided", Msg: fmt.Sprintf("%g: the threshold is a logit gap >= 0, such as 2.0", decided)}
	}
	ref, err := Load(ctx, refPath)
	if err != nil {
		return err
	}
	cand, err := Load(ctx, candPath)
	if err != nil {
		return err
	}
	res, err := Compare(ref, cand, decided)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, Format(res))
	return err
}

// Format renders a result as the reference tool's sections, in its order.
func Format(r *Result) string {
	var b strings.Builder
	// The models are the traces' own words and the names are paths: both
	// printed escaped, so an ESC sequence in either is shown, not obeyed.
	e := ui.Escape
	fmt.Fprintf(&b, "reference  %s (%s)\ncandidate  %s (%s)\npositions  %d\n\n", e(r.RefModel), e(r.Reference), e(r.CandModel), e(r.Candidate), r.Positions)
	fmt.Fprintf(&b, "%-36s%7d / %-7d %8.3f%%\n", "top-1 disagreement", r.Disagree, r.Positions, pct(r.Disagree, r.Positions))
	if r.DecidedPositions > 0 {
		fmt.Fprintf(&b, "%-36s%7d / %-7d %8.3f%%   <- gate on this\n", fmt.Sprintf("  on decided positions (gap >= %g)", r.Decided),
			r.DisagreeDecided, r.DecidedPositions, pct(r.DisagreeDecided, r.DecidedPositions))
	} else {
		fmt.Fprintf(&b, "  no decided positions at gap >= %g\n", r.Decided)
	}
	b.WriteString("\ndisagreement by how decided the reference was\n")
	fmt.Fprintf(&b, "%-24s%10s%11s%9s\n", "reference top-two gap", "positions", "disagreed", "rate")
	for _, k := range r.Buckets {
		if k.Positions == 0 {
			continue
		}
		hi := "inf"
		if !math.IsInf(k.Hi, 1) {
			hi = fmt.Sprintf("%g", k.Hi)
		}
		fmt.Fprintf(&b, "%-24s%10d%11d%8.2f%%\n", fmt.Sprintf("  %g to %s", k.Lo, hi), k.Positions, k.Disagreed, pct(k.Disagreed, k.Positions))
	}
	if r.Disagree > 0 {
		b.WriteString("\nwhere the reference's choice landed in the candidate\n")
		for _, k := range r.Ranks {
			fmt.Fprintf(&b, "  rank %-10s%6d (%5.1f%% of disagreements)\n", rankName(k.Rank, r.TopK), k.Count, pct(k.Count, r.Disagree))
		}
		worst := fmt.Sprintf("rank %d", r.Worst)
		if r.Worst == 0 {
			worst = "beyond the trace's top-k"
		}
		fmt.Fprintf(&b, "  worst: %s\n", worst)
	}
	if len(r.Deltas) > 0 {
		fmt.Fprintf(&b, "\n|logit delta| on the reference's own choice (%d positions): p50=%.4f  p90=%.4f  p99=%.4f  max=%.4f\n",
			len(r.Deltas), r.DeltaP50, r.DeltaP90, r.DeltaP99, r.DeltaMax)
	}
	fmt.Fprintf(&b, "\nperplexity  reference %.4f   candidate %.4f   %+.3f%%  (higher is worse)\n",
		r.PerplexityRef, r.PerplexityCand, 100*r.PerplexityChange)
	fmt.Fprintf(&b, "\nverdict: %s\n", r.Verdict)
	return b.String()
}

func rankName(rank, k int) string {
	if rank == 0 {
		return fmt.Sprintf(">%d", k)
	}
	return fmt.Sprint(rank)
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}
