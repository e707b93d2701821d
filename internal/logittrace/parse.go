// Package logittrace compares two teacher-forced logit traces of the
// reference engine (its logit_trace example's TSV: `# key value...` header
// lines, then one row per position: chunk, pos, target token, the target's
// negative log-likelihood, the top-k token ids and their logits), the way the
// reference's compare_logit_traces tool does. The question it answers is the
// one byte identity cannot: a change moved the numbers, so what did it move
// and does it matter. The metric that gates is top-1 disagreement on decided
// positions (where the reference's top-two gap is large), since a position
// the reference was indifferent about has no right answer to get wrong.
package logittrace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// Row is one position of a trace.
type Row struct {
	Chunk, Pos, Target int
	NLL                float64   // -log_softmax(target), >= 0
	TopIDs             []int     // the top-k token ids, best first
	TopLogits          []float64 // their logits, as many as TopIDs, non-increasing
	Line               int       // the row's line in its file
}

// Trace is a parsed trace file.
type Trace struct {
	Name string
	// Meta holds the header lines: key -> the rest of the line's fields.
	Meta map[string][]string
	Rows []Row
}

// Model is the trace's `# model` value, or "?".
func (t *Trace) Model() string {
	if v := t.Meta["model"]; len(v) > 0 {
		return v[0]
	}
	return "?"
}

// InputError is a trace that cannot be read: it names the file, line and
// column (1-based; the column is the byte offset of the bad field).
type InputError struct {
	File      string
	Line, Col int
	Msg       string
}

// Kind is configuration: a trace that does not parse is the user's to fix.
func (e *InputError) Kind() fail.Kind { return fail.Config }

func (e *InputError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s", fail.Pos{File: e.File, Line: e.Line, Col: e.Col}, e.Msg)
}

// columns is the data row layout the header's `# columns` line announces.
var columns = []string{"chunk", "pos", "target", "nll", "top_ids", "top_logits"}

// Load reads and parses the trace at path; one that is not a regular
// file, or too large, is a configuration error.
func Load(ctx context.Context, path string) (*Trace, error) {
	data, err := (inputfile.File{Path: path, What: "logit trace", Limit: inputfile.TableLimit,
		Fix: "give bench:traces regular files"}).Read(ctx)
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading logit trace: %w; check the path", err)
	}
	return Parse(path, data)
}

// maxRow bounds one row: a row is one position's top-k ids and logits, a
// few KiB even for a top-k of hundreds; the bound keeps a file with no line
// breaks from being held whole as one row.
const maxRow = 16 << 20

// Parse parses a trace named name (for messages).
func Parse(name string, data []byte) (*Trace, error) {
	t := &Trace{Name: name, Meta: map[string][]string{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), maxRow)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(text, "#"); ok {
			parts := strings.Split(strings.TrimSpace(rest), "\t")
			if len(parts) >= 2 {
				t.Meta[parts[0]] = parts[1:]
			}
			if parts[0] == "columns" && strings.Join(parts[1:], ",") != strings.Join(columns, ",") {
				return nil, &InputError{name, line, 1, fmt.Sprintf("columns %s; expected %s",
					strings.Join(parts[1:], " "), strings.Join(columns, " "))}
			}
			continue
		}
		row, err := parseRow(name, line, text)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, &InputError{name, line + 1, 1, fmt.Sprintf("a row longer than %d MiB, the most mlxbuild reads of one row; a trace row holds one position's top-k ids and logits, so check that this is a logit trace", maxRow>>20)}
	} else if err != nil {
		return nil, &InputError{File: name, Msg: err.Error()}
	}
	if len(t.Rows) == 0 {
		return nil, &InputError{File: name, Msg: "no positions: expected rows of " + strings.Join(columns, ", ")}
	}
	return t, nil
}

func parseRow(name string, line int, text string) (Row, error) {
	fields := strings.Split(text, "\t")
	col := make([]int, len(fields)) // each field's 1-based byte column
	for i, off := 0, 1; i < len(fields); i++ {
		col[i] = off
		off += len(fields[i]) + 1
	}
	row := Row{Line: line}
	if len(fields) != len(columns) {
		return row, &InputError{name, line, 1, fmt.Sprintf("%d tab-separated fields; expected %d (%s)",
			len(fields), len(columns), strings.Join(columns, ", "))}
	}
	bad := func(i int, format string, args ...any) error {
		return &InputError{name, line, col[i], columns[i] + ": " + fmt.Sprintf(format, args...)}
	}
	for i, dst := range []*int{&row.Chunk, &row.Pos, &row.Target} {
		v, err := strconv.Atoi(fields[i])
		if err != nil || v < 0 {
			return row, bad(i, "%q is not a whole number >= 0", fields[i])
		}
		*dst = v
	}
	nll, err := finite(fields[3])
	if err != nil || nll < 0 {
		return row, bad(3, "%q is not a negative log-likelihood (a number >= 0)", fields[3])
	}
	row.NLL = nll
	for _, s := range strings.Split(fields[4], ",") {
		id, err := strconv.Atoi(s)
		if err != nil || id < 0 {
			return row, bad(4, "%q is not a token id", s)
		}
		row.TopIDs = append(row.TopIDs, id)
	}
	for _, s := range strings.Split(fields[5], ",") {
		v, err := finite(s)
		if err != nil {
			return row, bad(5, "%q is not a finite logit", s)
		}
		if n := len(row.TopLogits); n > 0 && v > row.TopLogits[n-1] {
			return row, bad(5, "logit %s is above the one before it; the top-k must be best first", s)
		}
		row.TopLogits = append(row.TopLogits, v)
	}
	if len(row.TopIDs) != len(row.TopLogits) {
		return row, bad(5, "%d logits for %d token ids", len(row.TopLogits), len(row.TopIDs))
	}
	return row, nil
}

func finite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = fmt.Errorf("not finite")
	}
	return v, err
}
