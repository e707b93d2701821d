package benchcsv

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteTable writes the report as an aligned table: the model left-aligned,
// numbers right-aligned, one line per model, then the conditions shared by
// every row and the models found in only one file.
func WriteTable(w io.Writer, r *Report) error {
	rows := [][]string{{"model", "decode before", "decode after", "decode ratio", "prefill before", "prefill after", "prefill ratio"}}
	for _, m := range r.Models {
		rows = append(rows, []string{m.Model,
			tokS(m.Decode.Before), tokS(m.Decode.After), ratio(m.Decode.Ratio),
			tokS(m.Prefill.Before), tokS(m.Prefill.After), ratio(m.Prefill.Ratio)})
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "before: %s\nafter:  %s\n(tok/s; ratio = after / before)\n\n", r.Before, r.After)
	for _, row := range rows {
		for i, c := range row {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", width[i], c)
				continue
			}
			fmt.Fprintf(&b, "  %*s", width[i], c)
		}
		b.WriteByte('\n')
	}
	if s := shared(r.Models); s != "" {
		fmt.Fprintf(&b, "\n%s\n", s)
	}
	if len(r.OnlyBefore) > 0 {
		fmt.Fprintf(&b, "only in %s (not compared): %s\n", r.Before, strings.Join(r.OnlyBefore, ", "))
	}
	if len(r.OnlyAfter) > 0 {
		fmt.Fprintf(&b, "only in %s (not compared): %s\n", r.After, strings.Join(r.OnlyAfter, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shared names the conditions common to every compared model, so the table
// need not repeat them per row.
func shared(ms []ModelResult) string {
	if len(ms) == 0 {
		return ""
	}
	hw, bt := ms[0].Hardware, ms[0].BuildType
	for _, m := range ms[1:] {
		if m.Hardware != hw {
			hw = "(varies by model)"
		}
		if m.BuildType != bt {
			bt = "(varies by model)"
		}
	}
	return fmt.Sprintf("hardware: %s; build type: %s", hw, bt)
}

func tokS(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func ratio(r *float64) string {
	if r == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*r, 'f', 3, 64) + "x"
}
