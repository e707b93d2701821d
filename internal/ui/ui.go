// Package ui prints what mlxbuild does for a person: headings, warnings,
// errors that say what to do, and a summary. Colour (a few escape codes,
// color.go) is used only on a terminal with NO_COLOR unset.
package ui

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// Printer writes human output to one stream (stderr for diagnostics).
type Printer struct {
	W     io.Writer
	Color bool
	TTY   bool
	// OnWarn, when set, also gets each warning's text.
	OnWarn func(string)
}

// New makes a Printer for w; colour and the updating progress line follow
// whether w is a terminal, and NO_COLOR turns colour off.
func New(w io.Writer, env func(string) string) *Printer {
	if env == nil {
		env = os.Getenv
	}
	tty := IsTerminal(w)
	return &Printer{W: w, TTY: tty, Color: tty && env("NO_COLOR") == ""}
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Width is the terminal's width in columns for w, 0 when w is no terminal
// or the size cannot be read.
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}

func (p *Printer) paint(c Color, s string) string { return Paint(p.Color, c, s) }

// Step announces a phase: "==> materialize rocm tree".
func (p *Printer) Step(format string, args ...any) {
	fmt.Fprintf(p.W, "%s %s\n", p.paint(Cyan, "==>"), fmt.Sprintf(format, args...))
}

// Info prints an indented detail line.
func (p *Printer) Info(format string, args ...any) {
	fmt.Fprintf(p.W, "    %s\n", fmt.Sprintf(format, args...))
}

// Warn prints a warning.
func (p *Printer) Warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(p.W, "%s %s\n", p.paint(Yellow, "warning:"), msg)
	if p.OnWarn != nil {
		p.OnWarn(msg)
	}
}

// OK prints a passed check.
func (p *Printer) OK(format string, args ...any) {
	fmt.Fprintf(p.W, "  %s %s\n", p.paint(Green, "ok  "), fmt.Sprintf(format, args...))
}

// Bad prints a failed check.
func (p *Printer) Bad(format string, args ...any) {
	fmt.Fprintf(p.W, "  %s %s\n", p.paint(Red, "FAIL"), fmt.Sprintf(format, args...))
}

// Skip prints a gap that does not count (a backend the project does not use).
func (p *Printer) Skip(format string, args ...any) {
	fmt.Fprintf(p.W, "  %s %s\n", p.paint(Yellow, "skip"), fmt.Sprintf(format, args...))
}

// Fix prints what to do about the line before.
func (p *Printer) Fix(format string, args ...any) {
	fmt.Fprintf(p.W, "       %s %s\n", p.paint(Yellow, "->"), fmt.Sprintf(format, args...))
}

// Done prints the closing line of a successful run.
func (p *Printer) Done(format string, args ...any) {
	fmt.Fprintf(p.W, "%s %s\n", p.paint(Green, "done:"), fmt.Sprintf(format, args...))
}
