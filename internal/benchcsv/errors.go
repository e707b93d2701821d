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

// Mismatch is one reason a comparison was refused: a model measured under
// different conditions before and after.
type Mismatch struct {
	Model  string `json:"model"`
	Column string `json:"column"` // prompt_tokens, hardware or build_type
	Before string `json:"before"`
	After  string `json:"after"`
	// BeforeLine and AfterLine are the rows' lines in their files.
	BeforeLine int `json:"before_line"`
	AfterLine  int `json:"after_line"`
}

// RefusedError is a comparison that would mean nothing: the two files share
// no model, or some model was measured with a different prompt length, on
// different hardware or with a different build type.
type RefusedError struct {
	Before, After string
	Mismatches    []Mismatch // empty when the files share no model
}

// Kind is configuration: the user picked two runs that cannot be compared.
func (e *RefusedError) Kind() fail.Kind { return fail.Config }

func (e *RefusedError) Error() string {
	var b strings.Builder
	if len(e.Mismatches) == 0 {
		fmt.Fprintf(&b, "comparison refused: %s and %s have no model in common; compare runs of the same models", e.Before, e.After)
		return b.String()
	}
	fmt.Fprintf(&b, "comparison refused: %s and %s measured under different conditions:", e.Before, e.After)
	for _, m := range e.Mismatches {
		fmt.Fprintf(&b, "\n  model %s: %s %q (%s) vs %q (%s)",
			m.Model, m.Column, m.Before, fail.Pos{File: e.Before, Line: m.BeforeLine}, m.After, fail.Pos{File: e.After, Line: m.AfterLine})
	}
	b.WriteString("\nre-run the benchmark so both files use the same prompt, hardware and build type")
	return b.String()
}
