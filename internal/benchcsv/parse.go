// Package benchcmp compares two benchmark CSVs of the reference project
// (one row per model: prompt and generated token counts, prefill and decode
// times and rates, the hardware and build type, versions and commits) and
// reports, per model, the decode and prefill tok/s before and after a change
// and their ratio.
//
// Only runs measured under the same conditions compare: a model whose
// prompt_tokens, hardware or build_type differ between the files makes the
// whole comparison refused, with every reason listed.
package benchcsv

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Columns is the reference format's header, in the benchmark script's order.
var Columns = []string{
	"model", "model_path", "prompt_tokens", "generated_tokens", "prefill_ms", "prefill_tok_s",
	"decode_ms", "decode_tok_s", "date", "hardware", "mlxcel_version", "build_type", "max_tokens",
	"prompt", "prompt_target_len", "mlxcel_commit", "mlx_commit",
}

// Required lists the columns a comparison needs; the others may be absent.
var Required = []string{"model", "prompt_tokens", "prefill_tok_s", "decode_tok_s", "hardware", "build_type"}

// optionalNumbers are checked when present and non-empty, so a file whose
// timings are garbage is caught even where the comparison does not use them.
var optionalNumbers = []string{"generated_tokens", "prefill_ms", "decode_ms", "max_tokens", "prompt_target_len"}

// Row is one model's measurement.
type Row struct {
	Model        string
	PromptTokens int
	PrefillTokS  float64
	DecodeTokS   float64
	Hardware     string
	BuildType    string
	// Values holds every column of the row by header name, as written.
	Values map[string]string
	Line   int // the row's first line in its file
}

// File is a parsed benchmark CSV.
type File struct {
	Name string // as the user named it, used in messages
	Rows []Row  // in file order; models are unique
}

// Load reads and parses the CSV at path. A file that cannot be read gives an
// *os.PathError; a file that is not a valid benchmark CSV an *InputError.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading benchmark CSV: %w; check the path", err)
	}
	return Parse(path, data)
}

// Parse parses a benchmark CSV named name (for messages). The header must
// hold every Required column; other columns are kept in Row.Values.
func Parse(name string, data []byte) (*File, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // spreadsheets write a BOM
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err == io.EOF {
		return nil, &InputError{File: name, Msg: "the file is empty", Fix: "expected a header line with " + strings.Join(Required, ", ")}
	}
	if err != nil {
		return nil, csvError(name, err, 0)
	}
	index, err := headerIndex(name, header)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name}
	seen := map[string]int{} // model -> line
	for n := 1; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err, len(header))
		}
		row, err := parseRow(name, n, r, header, index, rec)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[row.Model]; dup {
			line, col := r.FieldPos(index["model"])
			return nil, &InputError{File: name, Line: line, Col: col, Row: n, Column: "model",
				Msg: fmt.Sprintf("duplicate model %q (first at line %d)", row.Model, first),
				Fix: "keep one row per model"}
		}
		seen[row.Model] = row.Line
		f.Rows = append(f.Rows, row)
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
			Msg: fmt.Sprintf("missing column(s) %s in the header", strings.Join(missing, ", ")),
			Fix: "expected the benchmark script's columns: " + strings.Join(Columns, ",")}
	}
	return index, nil
}

func parseRow(name string, n int, r *csv.Reader, header []string, index map[string]int, rec []string) (Row, error) {
	line, _ := r.FieldPos(0)
	row := Row{Line: line, Values: make(map[string]string, len(header))}
	for i, h := range header {
		if h != "" {
			row.Values[h] = rec[i]
		}
	}
	bad := func(column, msg, fix string) error {
		l, c := r.FieldPos(index[column])
		return &InputError{File: name, Line: l, Col: c, Row: n, Column: column, Msg: msg, Fix: fix}
	}
	row.Model = strings.TrimSpace(rec[index["model"]])
	if row.Model == "" {
		return row, bad("model", "the model name is empty", "name the model in every row")
	}
	row.Hardware = strings.TrimSpace(rec[index["hardware"]])
	row.BuildType = strings.TrimSpace(rec[index["build_type"]])

	v := strings.TrimSpace(rec[index["prompt_tokens"]])
	pt, err := strconv.Atoi(v)
	if err != nil || pt < 0 {
		return row, bad("prompt_tokens", fmt.Sprintf("%q is not a token count", v), "expected a whole number >= 0")
	}
	row.PromptTokens = pt
	for _, c := range []struct {
		col string
		dst *float64
	}{{"prefill_tok_s", &row.PrefillTokS}, {"decode_tok_s", &row.DecodeTokS}} {
		x, err := number(rec[index[c.col]])
		if err != nil {
			return row, bad(c.col, err.Error(), "expected a number >= 0 such as 41.7")
		}
		*c.dst = x
	}
	for _, col := range optionalNumbers {
		i, ok := index[col]
		if !ok || strings.TrimSpace(rec[i]) == "" {
			continue
		}
		if _, err := number(rec[i]); err != nil {
			return row, bad(col, err.Error(), "expected a number >= 0 or an empty field")
		}
	}
	return row, nil
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

// csvError turns encoding/csv's error into an InputError with the file name;
// fields is the header's length, 0 while reading the header itself.
func csvError(name string, err error, fields int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := "malformed CSV: " + pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) && fields > 0 {
			msg += fmt.Sprintf(" (the header has %d)", fields)
		}
		return &InputError{File: name, Line: pe.Line, Col: pe.Column, Msg: msg,
			Fix: "every row needs as many fields as the header, and quotes must be balanced"}
	}
	return &InputError{File: name, Msg: "malformed CSV: " + err.Error()}
}
