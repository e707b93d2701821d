package benchcsv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// fieldCol returns the 1-based byte column of needle on the 1-based line of
// the fixture, so expected positions come from the file, not from memory.
func fieldCol(t *testing.T, path string, line int, needle string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	i := strings.Index(lines[line-1], needle)
	if i < 0 {
		t.Fatalf("%s:%d has no %q", path, line, needle)
	}
	return i + 1
}

func TestLoadReferenceFormat(t *testing.T) {
	for _, path := range []string{"testdata/before.csv", "testdata/crlf_bom.csv"} {
		f, err := Load(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var models []string
		for _, r := range f.Rows {
			models = append(models, r.Model)
		}
		if got := strings.Join(models, ","); got != "Qwen3-0.6B-4bit,Llama-3.2-1B-Instruct-4bit,gemma-3-1b-it-qat-4bit" {
			t.Fatalf("%s: models %s", path, got)
		}
		q := f.Rows[0]
		if q.PromptTokens != 512 || q.DecodeTokS != 44.60 || q.PrefillTokS != 2433.46 ||
			q.Values["hardware"] != "AMD Radeon RX 7900 XTX (gfx1100)" || q.Commit != "3f9c2a1" || q.Date != "2026-11-28T10:12:03Z" || q.Line != 2 {
			t.Fatalf("%s: first row %+v", path, q)
		}
		// The prompt holds a comma and doubled quotes; CSV quoting must survive.
		if p := q.Values["prompt"]; p != `Summarize the following text, in "plain" words: the quick brown fox` {
			t.Fatalf("%s: prompt %q", path, p)
		}
		if len(q.Values) != 17 {
			t.Fatalf("%s: %d values, want one per column of the file (17)", path, len(q.Values))
		}
	}
}

// TestMalformed: what makes a whole file unreadable is refused with its
// position (exit 2).
func TestMalformed(t *testing.T) {
	tests := []struct {
		file      string
		line, col int // col 0: not checked
		row       int
		column    string
		msg       string
	}{
		{"bad_missing_column.csv", 1, 0, 0, "", "missing column decode_tok_s in"},
		{"bad_header_only.csv", 1, 0, 0, "", "header but no rows"},
		{"bad_empty.csv", 0, 0, 0, "", "the file is empty"},
		{"bad_quote.csv", 4, 0, 0, "", `extraneous or missing " in quoted-field`},
		{"bad_duplicate_column.csv", 1, 0, 0, "model", "appears twice in the header (fields 1 and 18)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/" + tt.file
			_, err := Load(context.Background(), path)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("want *InputError, got %T %v", err, err)
			}
			if ie.File != path || ie.Line != tt.line || (tt.col != 0 && ie.Col != tt.col) || ie.Row != tt.row || ie.Column != tt.column {
				t.Errorf("position: got file %s line %d col %d row %d column %q; want line %d col %d row %d column %q",
					ie.File, ie.Line, ie.Col, ie.Row, ie.Column, tt.line, tt.col, tt.row, tt.column)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path) || !strings.Contains(msg, tt.msg) || ie.Fix == "" {
				t.Errorf("message %q: want it to start with %s, contain %q and say what to do", msg, path, tt.msg)
			}
			if !isConfig(err) {
				t.Errorf("bad input must be a usage error (exit 2)")
			}
		})
	}
}

// TestBadRows: a row the reference's tool would skip (a value that is not a
// number, a ragged row, no model name) is kept as unreadable, with the column
// and position, and the file is read on; a row with a status is not
// measured whatever else it holds; what the reference reads as a measured row
// (a trailing comma, garbage in a column it does not use) is measured.
func TestBadRows(t *testing.T) {
	multiline := "testdata/bad_nonnumeric_multiline.csv"
	col := func(file string, line int, needle string) string {
		return fmt.Sprintf("(col %d)", fieldCol(t, "testdata/"+file, line, needle))
	}
	tests := []struct {
		file       string
		line       int
		unreadable []string // all in Row.Unreadable; nil: readable
		status     string
	}{
		{"bad_nonnumeric.csv", 3, []string{"column decode_tok_s " + col("bad_nonnumeric.csv", 3, "fast"), `"fast" is not a number`}, ""},
		// The first row's prompt spans two lines: the bad row is on line 4.
		{"bad_nonnumeric_multiline.csv", 4, []string{"decode_tok_s " + fmt.Sprintf("(col %d)", fieldCol(t, multiline, 4, "31.2O")), `"31.2O" is not a number`}, ""},
		{"bad_negative.csv", 3, []string{"prefill_tok_s", `"-12.5" is negative`}, ""},
		{"bad_prompt_tokens.csv", 2, []string{"prompt_tokens", `"512.5" is not a token count`}, ""},
		{"bad_empty_model.csv", 3, []string{"the model name is empty"}, ""},
		{"bad_ragged.csv", 3, []string{"15 fields where the header has 17"}, ""},
		{"bad_status_measured.csv", 3, nil, "FAIL:bench"},
		{"bad_two_extra.csv", 2, nil, "FAIL:bench,again"},
		{"bad_status_empty.csv", 2, nil, ""},
		{"bad_nonnumeric_optional.csv", 4, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := Load(context.Background(), "testdata/"+tt.file)
			if err != nil {
				t.Fatalf("a bad row must not refuse the file: %v", err)
			}
			var r *Row
			for i := range f.Rows {
				if f.Rows[i].Line == tt.line {
					r = &f.Rows[i]
				}
			}
			if r == nil {
				t.Fatalf("no row at line %d", tt.line)
			}
			for _, s := range tt.unreadable {
				if !strings.Contains(r.Unreadable, s) {
					t.Errorf("unreadable %q lacks %q", r.Unreadable, s)
				}
			}
			if tt.unreadable == nil && r.Unreadable != "" {
				t.Errorf("the reference reads this row; got unreadable %q", r.Unreadable)
			}
			if r.Status != tt.status || r.Measured() != (tt.unreadable == nil && tt.status == "") {
				t.Errorf("status %q measured %v, want %q", r.Status, r.Measured(), tt.status)
			}
		})
	}
}

// TestLoadReferenceVersions reads every header version the reference's
// harnesses wrote: the newest with the ROCm overlay columns, the mlx-lm
// baseline's, the older one with mlx_version, and rows of models that were
// skipped or failed (an extra unnamed trailing status, measurements empty).
func TestLoadReferenceVersions(t *testing.T) {
	tests := []struct {
		file      string
		rows      int
		unmeasure map[string]string // model -> status
	}{
		{"rocm_strix_2026-09-30.csv", 7, map[string]string{"gemma-4-31b-it-4bit": "FAIL:bench"}},
		{"rocm_strix_2026-10-02.csv", 7, map[string]string{"Qwen3-0.6B-4bit": "SKIP:oom"}},
		{"pylm_strix_2026-09-29.csv", 5, map[string]string{}},
		{"cuda_v100_2026-08-31.csv", 3, map[string]string{"qwen3.8-27B-4bit": "SKIP:oom"}},
	}
	for _, tt := range tests {
		f, err := Load(context.Background(), "testdata/"+tt.file)
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if len(f.Rows) != tt.rows {
			t.Fatalf("%s: %d rows, want %d", tt.file, len(f.Rows), tt.rows)
		}
		for _, r := range f.Rows {
			want, failed := tt.unmeasure[r.Model]
			if r.Status != want || r.Measured() == failed {
				t.Errorf("%s: %s status %q measured %v, want %q", tt.file, r.Model, r.Status, r.Measured(), want)
			}
			if r.Measured() && (r.DecodeTokS <= 0 || r.PromptTokens <= 0) {
				t.Errorf("%s: %s measured without numbers: %+v", tt.file, r.Model, r)
			}
		}
	}
	f, _ := Load(context.Background(), "testdata/rocm_strix_2026-10-02.csv")
	if f.Rows[0].Commit != "9a01c3d7" {
		t.Errorf("a -dirty commit compares as its commit: got %q", f.Rows[0].Commit)
	}
}

func TestLoadMissingFileIsIOError(t *testing.T) {
	_, err := Load(context.Background(), "testdata/no-such.csv")
	if !errors.Is(err, fs.ErrNotExist) || isConfig(err) {
		t.Fatalf("want a not-exist I/O error that is not a usage error, got %v", err)
	}
}

func TestNumber(t *testing.T) {
	for _, s := range []string{"NaN", "inf", "-Inf", "1e400", "0x1p3", "1_000", "", " ", "12,5", "--1"} {
		if x, err := number(s); err == nil {
			t.Errorf("number(%q) = %v, want an error", s, x)
		}
	}
	for s, want := range map[string]float64{"0": 0, " 41.7 ": 41.7, "1e3": 1000, "2433.46": 2433.46, "+3": 3} {
		if x, err := number(s); err != nil || x != want {
			t.Errorf("number(%q) = %v, %v; want %v", s, x, err, want)
		}
	}
}
