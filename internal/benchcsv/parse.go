// Package benchcsv compares two benchmark CSVs of the reference project, the
// output of its decode benchmark (one row per model: prompt and generated
// token counts, prefill and decode times and rates, date, hardware, build
// type, versions and commits) or of its mlx-lm baseline script, the way the
// reference's own compare tool does: rows are paired by model (through an
// alias catalog), every pair's decode ratio is reported with the median and
// quartiles, and every model left out is listed with its reason.
//
// Only two things refuse a comparison: the two files come from different
// harnesses (a VLM sweep against a text one), or the options contradict each
// other. Everything else that makes a pair meaningless (prompt lengths apart
// by more than the tolerance, other commits, dates apart in reference mode, a
// non-generative checkpoint, a model measured on one side only, that failed,
// or whose row cannot be read) drops that pair, with the reason, and keeps
// the rest. A model measured twice in one file (a re-run appended to it) is
// compared by its later row, and the report says which row it replaced.
package benchcsv

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Columns is the newest reference header, in the benchmark script's order.
// Older files lack the commit columns or name mlx_version instead of
// mlxcel_version; the mlx-lm baseline names baseline_version and has no
// prompt_target_len. All of them parse.
var Columns = []string{
	"model", "model_path", "prompt_tokens", "generated_tokens", "prefill_ms", "prefill_tok_s",
	"decode_ms", "decode_tok_s", "date", "hardware", "mlxcel_version", "build_type", "max_tokens",
	"prompt", "prompt_target_len", "mlxcel_commit", "mlx_commit", "mlx_rocm_overlay_commit", "hip_version",
}

// Required lists the columns every version of the format has and a
// comparison needs.
var Required = []string{"model", "prompt_tokens", "prefill_tok_s", "decode_tok_s"}

// Row is one model's line.
type Row struct {
	Model string
	// Status is the extra unnamed trailing field the benchmark script writes
	// for a model it skipped or that failed ("SKIP:oom", "FAIL:bench",
	// "FAIL:no_output"); empty for a measured row. A row with a status is not
	// compared, whatever its other fields hold, as the reference does.
	Status string
	// Unreadable says why a row without a status cannot be compared (a decode
	// rate that is not a number, fewer fields than the header, no model name),
	// naming the column; empty for a row that parsed. The reference skips
	// such a row; so does the comparison, and it lists the row with this.
	Unreadable   string
	PromptTokens int
	PrefillTokS  float64
	DecodeTokS   float64
	Date         string // as written: 2026-09-30 or an RFC 3339 time
	Commit       string // mlxcel_commit without a -dirty suffix; empty when absent
	// Values holds every named column of the row by header name, as written.
	Values map[string]string
	Line   int // the row's first line in its file
}

// Measured reports whether the row carries numbers to compare.
func (r *Row) Measured() bool { return r.Status == "" && r.Unreadable == "" }

// File is a parsed benchmark CSV.
type File struct {
	Name string // as the user named it, used in messages
	Rows []Row  // in file order; a model may have several rows (re-runs appended)
}

// Load reads and parses the CSV at path. A file that cannot be read gives an
// *os.PathError; a file that is not a valid benchmark CSV an *InputError;
// one that is not a regular file, or too large, a configuration error.
func Load(ctx context.Context, path string) (*File, error) {
	data, err := (inputfile.File{Path: path, What: "benchmark CSV", Limit: inputfile.TableLimit,
		Fix: "give bench:compare regular CSV files"}).Read(ctx)
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading benchmark CSV: %w; check the path", err)
	}
	return Parse(path, data)
}

// Parse parses a benchmark CSV named name (for messages). The header must
// hold every Required column; other columns are kept in Row.Values. A row may
// carry fields beyond the header: the status of a model that was not
// measured. What makes the file unreadable as a whole (not CSV, no header, a
// missing column, no rows) is an *InputError; a row that cannot be read is
// kept with its reason in Row.Unreadable, as the reference skips it and
// reads on.
func Parse(name string, data []byte) (*File, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // spreadsheets write a BOM
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1 // the status field makes some rows one longer; checked below
	header, err := r.Read()
	if err == io.EOF {
		return nil, &InputError{File: name, Msg: "the file is empty", Fix: "expected a header line with " + strings.Join(Required, ", ")}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	index, err := headerIndex(name, header)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name}
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		f.Rows = append(f.Rows, parseRow(r, header, index, rec))
	}
	if len(f.Rows) == 0 {
		return nil, &InputError{File: name, Line: 1, Msg: "the file has a header but no rows", Fix: "run the benchmark first"}
	}
	return f, nil
}

// headerIndex maps column names to positions and checks the header.
func headerIndex(name string, header []string) (map[string]int, error) {
	index := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		if h == "" {
			continue
		}
		if j, dup := index[h]; dup {
			return nil, &InputError{File: name, Line: 1, Column: h,
				Msg: fmt.Sprintf("appears twice in the header (fields %d and %d)", j+1, i+1), Fix: "remove one of them"}
		}
		index[h] = i
	}
	var missing []string
	for _, c := range Required {
		if _, ok := index[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, &InputError{File: name, Line: 1,
			Msg: fmt.Sprintf("missing %s %s in the header", plural.Noun(len(missing), "column"), strings.Join(missing, ", ")),
			Fix: "expected the benchmark script's columns: " + strings.Join(Columns, ",")}
	}
	return index, nil
}

// parseRow reads one record. A value it cannot use makes the row unreadable,
// with the column and what is wrong, instead of failing the file.
func parseRow(r *csv.Reader, header []string, index map[string]int, rec []string) Row {
	line, _ := r.FieldPos(0)
	row := Row{Line: line, Values: make(map[string]string, len(header))}
	if len(rec) < len(header) {
		row.Unreadable = fmt.Sprintf("%d fields where the header has %d", len(rec), len(header))
	}
	for i, h := range header {
		if h != "" && i < len(rec) {
			row.Values[h] = rec[i]
		}
	}
	row.Model = strings.TrimSpace(row.Values["model"])
	row.Date = strings.TrimSpace(row.Values["date"])
	row.Commit = strings.TrimSuffix(strings.TrimSpace(row.Values["mlxcel_commit"]), "-dirty")
	if len(rec) > len(header) {
		// A trailing comma leaves an empty extra field: that is no status.
		row.Status = strings.Trim(strings.TrimSpace(strings.Join(rec[len(header):], ",")), ",")
	}
	switch {
	case row.Status != "" || row.Unreadable != "":
		return row
	case row.Model == "":
		row.Unreadable = "the model name is empty"
		return row
	}
	bad := func(column, msg string) Row {
		_, c := r.FieldPos(index[column])
		row.Unreadable = fmt.Sprintf("column %s (col %d): %s", column, c, msg)
		return row
	}
	v := strings.TrimSpace(rec[index["prompt_tokens"]])
	pt, err := strconv.Atoi(v)
	if err != nil || pt < 0 {
		return bad("prompt_tokens", fmt.Sprintf("%q is not a token count", v))
	}
	row.PromptTokens = pt
	for _, c := range []struct {
		col string
		dst *float64
	}{{"prefill_tok_s", &row.PrefillTokS}, {"decode_tok_s", &row.DecodeTokS}} {
		x, err := number(rec[index[c.col]])
		if err != nil {
			return bad(c.col, err.Error())
		}
		*c.dst = x
	}
	return row
}

// number parses a finite, non-negative decimal.
func number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("the value is empty")
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || strings.ContainsAny(s, "_xXpP") {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if x < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return x, nil
}

// csvError turns encoding/csv's error into an InputError with the file name.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: name, Line: pe.Line, Col: pe.Column, Msg: "malformed CSV: " + pe.Err.Error(),
			Fix: "quotes must be balanced"}
	}
	return &InputError{File: name, Msg: "malformed CSV: " + err.Error()}
}
