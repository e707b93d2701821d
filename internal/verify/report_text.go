package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/ui"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// WriteText writes one line per check (PASS, FAIL or SKIP, the check's name
// and its reason), each failure's findings below it as `file:line: message`
// with a `fix:` line, and a closing count. With color set, the status words
// are coloured; the caller decides (terminal, NO_COLOR).
func WriteText(w io.Writer, rs []Result, useColor bool) {
	paint := func(c ui.Color, s string) string { return ui.Paint(useColor, c, s) }
	var n counts
	var b strings.Builder
	for _, r := range rs {
		n.add(r.Status)
		word := map[Status]string{Pass: paint(ui.Green, "PASS"), Fail: paint(ui.BoldRed, "FAIL"), Skip: paint(ui.Yellow, "SKIP"), NotRun: paint(ui.BoldRed, "NRUN")}[r.Status]
		b.WriteString(word + "  " + r.Check)
		if summary := summarize(r); summary != "" {
			b.WriteString(": " + ui.EscapeLines(summary))
		}
		b.WriteByte('\n')
		for _, f := range r.Findings {
			writeFinding(&b, f, "      ")
		}
	}
	fmt.Fprintf(&b, "%s: %d passed, %d failed, %d skipped", plural.Count(len(rs), "check"), n.pass, n.fail, n.skip)
	if n.notRun > 0 {
		fmt.Fprintf(&b, ", %d not run", n.notRun)
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}

// writeFinding writes one finding: its location and message, then what to
// do. A finding quotes files (a line of source, a record, a path), so all
// of it goes through ui's escaping: an ESC sequence in a quoted line is
// shown, not obeyed. The message keeps its own line breaks.
func writeFinding(b *strings.Builder, f Finding, indent string) {
	b.WriteString(indent)
	if loc := f.Location(); loc != "" {
		b.WriteString(ui.Escape(loc) + ": ")
	}
	b.WriteString(strings.ReplaceAll(ui.EscapeLines(f.Message), "\n", "\n"+indent+"  "))
	b.WriteByte('\n')
	if f.Fix != "" {
		b.WriteString(indent + "  fix: " + ui.EscapeLines(f.Fix) + "\n")
	}
}

// summarize gives a result's one-line summary: the reason, and for a
// failure the number of findings first.
func summarize(r Result) string {
	if r.Status != Fail || len(r.Findings) == 0 {
		return r.Reason
	}
	if r.Reason == "" {
		return plural.Count(len(r.Findings), "finding")
	}
	return plural.Count(len(r.Findings), "finding") + " (" + r.Reason + ")"
}
