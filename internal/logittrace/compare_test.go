package logittrace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// gaps are the reference's top-two gaps of the stand-in trace, one per
// position, spread over every bucket like the real sample's (which has 24,
// 20, 24, 38, 16 and 6 positions in them).
var gaps = []float64{0.125, 0.25, 0.75, 1.5, 2.0, 3.5, 6.0, 12.0, 0.0, 4.0}

// standIn writes a trace in the reference's format: the sample's header
// lines, then chunk/pos/target/nll/top_ids/top_logits rows with k = 8.
// edit may change a row before it is written.
func standIn(t *testing.T, name string, edit func(i int, r *Row)) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# model\tmodels/mlx/stand-in-4bit\n# device\tApple GPU (Metal)\n")
	b.WriteString("# corpus\ttests/fixtures/wikitext2_excerpt.txt\ttokens\t289403\n")
	b.WriteString("# chunks\t10\tchunk_tokens\t1\ttopk\t8\tprefill\t512\n")
	b.WriteString("# columns\tchunk\tpos\ttarget\tnll\ttop_ids\ttop_logits\n# start_token\t512\n# contiguous\tfalse\n")
	for i, g := range gaps {
		r := Row{Chunk: i, Target: 100 + i, NLL: 0.1 * float64(i+1)}
		top := 25.0
		r.TopLogits = []float64{top, top - g}
		r.TopIDs = []int{100 + i, 900 + i}
		for k := 2; k < 8; k++ {
			r.TopIDs = append(r.TopIDs, 1000*k+i)
			r.TopLogits = append(r.TopLogits, top-g-float64(k))
		}
		if edit != nil {
			edit(i, &r)
		}
		ids, lg := make([]string, len(r.TopIDs)), make([]string, len(r.TopLogits))
		for k := range r.TopIDs {
			ids[k] = fmt.Sprint(r.TopIDs[k])
		}
		for k := range r.TopLogits {
			lg[k] = fmt.Sprintf("%.6f", r.TopLogits[k])
		}
		fmt.Fprintf(&b, "%d\t%d\t%d\t%.6f\t%s\t%s\n", r.Chunk, r.Pos, r.Target, r.NLL, strings.Join(ids, ","), strings.Join(lg, ","))
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func compare(t *testing.T, ref, cand string, decided float64) *Result {
	t.Helper()
	r, err := Load(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(context.Background(), cand)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Compare(r, c, decided)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// swapTop makes the candidate pick the reference's runner-up at position at.
func swapTop(at int) func(int, *Row) {
	return func(i int, r *Row) {
		if i == at {
			r.TopIDs[0], r.TopIDs[1] = r.TopIDs[1], r.TopIDs[0]
		}
	}
}

func TestIdenticalTracesAgree(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	res := compare(t, ref, standIn(t, "cand.tsv", nil), DefaultDecided)
	if res.Verdict != AllAgree || res.Disagree != 0 || res.Positions != len(gaps) || res.PerplexityChange != 0 || res.DeltaMax != 0 {
		t.Fatalf("%+v", res)
	}
	// gap >= 2.0: 2.0, 3.5, 6.0, 12.0, 4.0.
	if res.DecidedPositions != 5 {
		t.Fatalf("decided positions %d, want 5", res.DecidedPositions)
	}
	var total int
	want := map[float64]int{0: 3, 0.5: 1, 1: 1, 2: 3, 5: 1, 10: 1}
	for _, b := range res.Buckets {
		total += b.Positions
		if b.Positions != want[b.Lo] {
			t.Errorf("bucket %g: %d positions, want %d", b.Lo, b.Positions, want[b.Lo])
		}
	}
	if total != res.Positions {
		t.Fatalf("buckets hold %d of %d positions", total, res.Positions)
	}
	// perplexity = exp(mean nll) with nll 0.1 .. 1.0
	if want := math.Exp(0.55); math.Abs(res.PerplexityRef-want) > 1e-9 {
		t.Fatalf("perplexity %v, want exp(0.55) = %v", res.PerplexityRef, want)
	}
}

func TestVerdicts(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	// Position 2 has gap 0.75: undecided at the default threshold.
	res := compare(t, ref, standIn(t, "undecided.tsv", swapTop(2)), DefaultDecided)
	if res.Verdict != UndecidedOnly || res.Disagree != 1 || res.DisagreeDecided != 0 || len(res.Ranks) != 1 || res.Ranks[0] != (Rank{2, 1}) || res.Worst != 2 {
		t.Fatalf("undecided swap: %+v", res)
	}
	// At a threshold of 0.5 the same swap is on a decided position.
	if res := compare(t, ref, standIn(t, "undecided.tsv", swapTop(2)), 0.5); res.Verdict != DecidedDiffer || res.DisagreeDecided != 1 {
		t.Fatalf("threshold 0.5: %+v", res)
	}
	// Position 7 has gap 12 and the candidate lost the token from its top-k.
	lost := func(i int, r *Row) {
		if i == 7 {
			r.TopIDs[0] = 77777
		}
	}
	res = compare(t, ref, standIn(t, "decided.tsv", lost), DefaultDecided)
	if res.Verdict != DecidedDiffer || res.DisagreeDecided != 1 || res.Ranks[0] != (Rank{0, 1}) || res.Worst != 0 || len(res.Deltas) != len(gaps)-1 {
		t.Fatalf("decided loss: %+v", res)
	}
	out := Format(res)
	for _, s := range []string{"rank >8", "worst: beyond the trace's top-k", "<- gate on this", "verdict: the traces differ on positions the reference had decided",
		"  10 to inf                      1          1  100.00%"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	// No position reaches the threshold: every disagreement is undecided.
	if res := compare(t, ref, standIn(t, "undecided.tsv", swapTop(2)), 100); res.Verdict != UndecidedOnly || res.DecidedPositions != 0 {
		t.Fatalf("no decided positions: %+v", res)
	}
}

func TestLogitDeltas(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	shift := func(i int, r *Row) {
		for k := range r.TopLogits {
			r.TopLogits[k] -= 0.01 * float64(i)
		}
		r.NLL *= 1.1
	}
	res := compare(t, ref, standIn(t, "cand.tsv", shift), DefaultDecided)
	// |delta| = 0.00 .. 0.09: p50 = d[5], p90 = d[9], max 0.09.
	if math.Abs(res.DeltaP50-0.05) > 1e-6 || math.Abs(res.DeltaP90-0.09) > 1e-6 || math.Abs(res.DeltaMax-0.09) > 1e-6 {
		t.Fatalf("deltas p50 %v p90 %v max %v", res.DeltaP50, res.DeltaP90, res.DeltaMax)
	}
	if want := math.Exp(0.55*1.1)/math.Exp(0.55) - 1; math.Abs(res.PerplexityChange-want) > 1e-6 {
		t.Fatalf("perplexity change %v, want %v", res.PerplexityChange, want)
	}
}

func TestNotComparable(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	r, _ := Load(context.Background(), ref)
	short := *r
	short.Rows = r.Rows[:5]
	_, err := Compare(r, &short, DefaultDecided)
	var nc *NotComparableError
	if !errors.As(err, &nc) || nc.First != -1 || !isConfig(err) || !strings.Contains(err.Error(), "has 10 positions and") {
		t.Fatalf("count mismatch: %v", err)
	}
	other := func(i int, r *Row) {
		if i >= 3 {
			r.Target++
		}
	}
	c, _ := Load(context.Background(), standIn(t, "other.tsv", other))
	_, err = Compare(r, c, DefaultDecided)
	if !errors.As(err, &nc) || nc.First != 3 || nc.Mismatched != 7 || !strings.Contains(err.Error(), "first at index 3") ||
		!strings.Contains(err.Error(), fmt.Sprintf("%s:%d", ref, r.Rows[3].Line)) {
		t.Fatalf("token mismatch: %v", err)
	}
}

func TestRunExitClasses(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	var out bytes.Buffer
	if err := Run(context.Background(), &out, ref, standIn(t, "cand.tsv", swapTop(0)), DefaultDecided); err != nil || !strings.Contains(out.String(), "verdict: the traces differ only where") {
		t.Fatalf("disagreement is not an error: %v\n%s", err, out.String())
	}
	if err := Run(context.Background(), &out, ref, "testdata/no-such.tsv", DefaultDecided); err == nil || isConfig(err) {
		t.Fatalf("a missing file is a failure, not a usage error: %v", err)
	}
	if err := Run(context.Background(), &out, ref, ref, -1); !isConfig(err) {
		t.Fatalf("a negative threshold is a usage error: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	head := "# model\tm\n# columns\tchunk\tpos\ttarget\tnll\ttop_ids\ttop_logits\n"
	tests := []struct {
		name, text string
		line, col  int
		msg        string
	}{
		{"fields", head + "0\t0\t5\t0.1\t5,6\n", 3, 1, "5 tab-separated fields; expected 6"},
		{"target", head + "0\t0\tx\t0.1\t5,6\t2,1\n", 3, 5, `target: "x" is not a whole number`},
		{"nll", head + "0\t0\t5\t-0.1\t5,6\t2,1\n", 3, 7, "nll:"},
		{"ids", head + "0\t0\t5\t0.1\t5,,6\t2,1,0\n", 3, 11, `top_ids: "" is not a token id`},
		{"order", head + "0\t0\t5\t0.1\t5,6\t2,3\n", 3, 15, "above the one before it"},
		{"count", head + "0\t0\t5\t0.1\t5,6\t2\n", 3, 15, "1 logits for 2 token ids"},
		{"nan", head + "0\t0\t5\t0.1\t5,6\t2,NaN\n", 3, 15, "not a finite logit"},
		{"columns", "# columns\tchunk\tpos\n", 1, 1, "columns chunk pos; expected"},
		{"empty", head, 0, 0, "no positions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("t.tsv", []byte(tt.text))
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != tt.line || ie.Col != tt.col || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "t.tsv") {
				t.Fatalf("got %v (%+v), want t.tsv:%d:%d %s", err, ie, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// isConfig reports whether err is the user's to fix (exit status 2).
func isConfig(err error) bool { return err != nil && fail.KindOf(err) == fail.Config }
