package benchcsv

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// WriteTable writes the report as text: the files, the ratio distribution,
// one aligned line per pair (moved pairs marked), then every model left out
// with its reason. Every value read from the files (names, statuses,
// dates, commits) and their paths are printed through ui.Escape: a model
// name with an ESC sequence or a newline is shown, not obeyed.
func WriteTable(w io.Writer, r *Report, before, after *File) error {
	e := ui.Escape
	var b strings.Builder
	fmt.Fprintf(&b, "before:  %s (%s)\n", e(r.Before), counted(before))
	fmt.Fprintf(&b, "after:   %s (%s)\n", e(r.After), counted(after))
	fmt.Fprintf(&b, "harness: %s; %s on both sides\n\n", e(r.Harness), plural.Count(r.Shared, "model"))
	if s := r.Summary; s != nil {
		fmt.Fprintf(&b, "decode ratio (after / before) over %s: median %s, quartiles %s/%s, range %s-%s\n",
			plural.Count(len(r.Pairs), "pair"), x(s.Median), x(s.Q1), x(s.Q3), x(s.Min), x(s.Max))
		rows := [][]string{{"model", "decode before", "decode after", "ratio", "prefill ratio", ""}}
		for _, p := range r.Pairs {
			mark := ""
			if p.Moved {
				mark = fmt.Sprintf("moved >%s", pct(r.Options.MovedThreshold))
			}
			rows = append(rows, []string{e(p.Model), tokS(p.Decode.Before), tokS(p.Decode.After),
				ratio(p.Decode.Ratio), ratio(p.Prefill.Ratio), mark})
		}
		align(&b, rows)
	} else {
		b.WriteString("no comparable pairs; every reason is listed below\n")
	}
	if len(r.Replaced) > 0 {
		fmt.Fprintf(&b, "\nreplaced by a later row of the same model (%d):\n", len(r.Replaced))
		for _, d := range r.Replaced {
			fmt.Fprintf(&b, "  %s:%d  %s: line %d is compared instead\n", e(d.File), d.Line, e(d.Model), d.KeptLine)
		}
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(&b, "\nleft out (%d):\n", len(r.Dropped))
		rows := [][]string{}
		for _, d := range r.Dropped {
			rows = append(rows, []string{"  " + e(d.Model), explain(d, r.Options)})
		}
		align(&b, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// explain says why a model was dropped and what would pair it, with the
// values of both sides escaped.
func explain(d Drop, opt Options) string {
	d.Before, d.After = ui.Escape(d.Before), ui.Escape(d.After)
	switch d.Reason {
	case NonGenerative:
		return "non-generative checkpoint (not a decode rate; -includeNonGenerative keeps it)"
	case NotMeasured:
		return notMeasured(d)
	case PromptLength:
		return fmt.Sprintf("prompt length %s -> %s, beyond %s", d.Before, d.After, pct(opt.PromptTolerance))
	case CommitChange:
		return fmt.Sprintf("mlxcel_commit %s -> %s (-allowCommitChange if that is the comparison)", d.Before, d.After)
	case DateGap:
		return fmt.Sprintf("measured %s and %s, more than %s apart", d.Before, d.After, plural.Count(opt.MaxDateGapDays, "day"))
	default:
		if d.After == "-" {
			return "measured before only"
		}
		return "measured after only"
	}
}

// notMeasured says what each side's row is: "failed after: FAIL:bench",
// "skipped before: SKIP:oom", "unreadable before: ...", "no row after".
func notMeasured(d Drop) string {
	var parts []string
	for _, side := range []struct{ name, v string }{{"before", d.Before}, {"after", d.After}} {
		switch v := side.v; {
		case v == "-":
			parts = append(parts, "no row "+side.name)
		case v == "measured":
			parts = append(parts, "measured "+side.name)
		case strings.HasPrefix(v, "FAIL"):
			parts = append(parts, fmt.Sprintf("failed %s: %s", side.name, v))
		case strings.HasPrefix(v, "SKIP"):
			parts = append(parts, fmt.Sprintf("skipped %s: %s", side.name, v))
		default:
			if why, ok := strings.CutPrefix(v, "unreadable: "); ok {
				parts = append(parts, fmt.Sprintf("unreadable %s: %s", side.name, why))
			} else {
				parts = append(parts, fmt.Sprintf("not measured %s: %s", side.name, v))
			}
		}
	}
	return strings.Join(parts, "; ")
}

func counted(f *File) string {
	n := 0
	for i := range f.Rows {
		if f.Rows[i].Measured() {
			n++
		}
	}
	return fmt.Sprintf("%s, %d measured", plural.Count(len(f.Rows), "row"), n)
}

// align writes rows as columns: the first left-aligned, numbers right-aligned,
// the last (a note) left-aligned and unpadded.
func align(b *strings.Builder, rows [][]string) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, c := range row {
			switch {
			case i == 0:
				fmt.Fprintf(&line, "%-*s", width[i], c)
			case i == len(row)-1:
				fmt.Fprintf(&line, "  %s", c)
			default:
				fmt.Fprintf(&line, "  %*s", width[i], c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

func tokS(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func x(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) + "x" }

func pct(v float64) string { return strconv.FormatFloat(v*100, 'f', -1, 64) + "%" }

func ratio(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return x(*r)
}
