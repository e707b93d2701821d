// Package ui prints what mlxbuild does for a person: headings, warnings,
// errors that say what to do, and a summary. Colour comes from fatih/color
// and is used only on a terminal with NO_COLOR unset.
package ui

import (
	"fmt"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// Printer writes human output to one stream (stderr for diagnostics).
type Printer struct {
	W     io.Writer
	Color bool
	TTY   bool
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
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

func (p *Printer) paint(attr color.Attribute, s string) string {
	if !p.Color {
		return s
	}
	c := color.New(attr)
	c.EnableColor()
	return c.Sprint(s)
}

// Step announces a phase: "==> materialize rocm tree".
func (p *Printer) Step(format string, args ...any) {
	fmt.Fprintf(p.W, "%s %s\n", p.paint(color.FgCyan, "==>"), fmt.Sprintf(format, args...))
}

// Info prints an indented detail line.
func (p *Printer) Info(format string, args ...any) {
	fmt.Fprintf(p.W, "    %s\n", fmt.Sprintf(format, args...))
}

// Warn prints a warning.
func (p *Printer) Warn(format string, args ...any) {
	fmt.Fprintf(p.W, "%s %s\n", p.paint(color.FgYellow, "warning:"), fmt.Sprintf(format, args...))
}

// OK prints a passed check.
func (p *Printer) OK(format string, args ...any) {
	fmt.Fprintf(p.W, "  %s %s\n", p.paint(color.FgGreen, "ok  "), fmt.Sprintf(format, args...))
}

// Bad prints a failed check.
func (p *Printer) Bad(format string, args ...any) {
	fmt.Fprintf(p.W, "  %s %s\n", p.paint(color.FgRed, "FAIL"), fmt.Sprintf(format, args...))
}

// Fix prints what to do about the line before.
func (p *Printer) Fix(format string, args ...any) {
	fmt.Fprintf(p.W, "       %s %s\n", p.paint(color.FgYellow, "->"), fmt.Sprintf(format, args...))
}

// Done prints the closing line of a successful run.
func (p *Printer) Done(format string, args ...any) {
	fmt.Fprintf(p.W, "%s %s\n", p.paint(color.FgGreen, "done:"), fmt.Sprintf(format, args...))
}
