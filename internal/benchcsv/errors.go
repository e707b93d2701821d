package benchcsv

import (
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// InputError is a CSV that cannot be read as a benchmark file: malformed CSV,
// a missing column, a value that is not a number, a duplicate model. It points
// at the file, line and column, and at the data row and column name when
// there is one.
type InputError struct {
	File   string // the file as the user named it
	Line   int    // 1-based line of the problem; 0 when it concerns the whole file
	Col    int    // 1-based column (byte offset in the line); 0 when unknown
	Row    int    // 1-based data row (the header is not counted); 0 for the header or the whole file
	Column string // the CSV column name, when the problem is one value
	Msg    string // what is wrong
	Fix    string // what to do about it
}

// Kind is configuration: the input file is the user's to fix.
func (e *InputError) Kind() fail.Kind { return fail.Config }

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Row > 0 {
		fmt.Fprintf(&b, "row %d", e.Row)
		if e.Column != "" {
			fmt.Fprintf(&b, ", column %s", e.Column)
		}
		b.WriteString(": ")
	} else if e.Column != "" {
		fmt.Fprintf(&b, "column %s: ", e.Column)
	}
	b.WriteString(e.Msg)
	if e.Fix != "" {
		b.WriteString("; ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// RefusedError is a comparison that would mean nothing: the two files come
// from different harnesses (a VLM sweep against a text one), which measure
// different workloads.
type RefusedError struct {
	Before, After               string
	BeforeHarness, AfterHarness string
}

// Kind is configuration: the user picked two runs that cannot be compared.
func (e *RefusedError) Kind() fail.Kind { return fail.Config }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("comparison refused: %s is a %s benchmark and %s a %s one; they measure different workloads, compare files of one harness",
		e.Before, e.BeforeHarness, e.After, e.AfterHarness)
}
