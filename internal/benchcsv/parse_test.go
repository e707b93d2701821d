package benchcsv

import (
	"errors"
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
		f, err := Load(path)
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
			q.Hardware != "AMD Radeon RX 7900 XTX (gfx1100)" || q.BuildType != "release" || q.Line != 2 {
			t.Fatalf("%s: first row %+v", path, q)
		}
		// The prompt holds a comma and doubled quotes; CSV quoting must survive.
		if p := q.Values["prompt"]; p != `Summarize the following text, in "plain" words: the quick brown fox` {
			t.Fatalf("%s: prompt %q", path, p)
		}
		if len(q.Values) != len(Columns) {
			t.Fatalf("%s: %d values, want one per reference column (%d)", path, len(q.Values), len(Columns))
		}
	}
}

func TestMalformed(t *testing.T) {
	multiline := "testdata/bad_nonnumeric_multiline.csv"
	tests := []struct {
		file      string
		line, col int // col 0: not checked
		row       int
		column    string
		msg       string
	}{
		{"bad_missing_column.csv", 1, 0, 0, "", "missing column(s) decode_tok_s"},
		{"bad_nonnumeric.csv", 3, fieldCol(t, "testdata/bad_nonnumeric.csv", 3, "fast"), 2, "decode_tok_s", `"fast" is not a number`},
		{"bad_nonnumeric_optional.csv", 4, fieldCol(t, "testdata/bad_nonnumeric_optional.csv", 4, "n/a"), 3, "decode_ms", `"n/a" is not a number`},
		// The first row's prompt spans two lines: the bad row is on line 4, data row 2.
		{"bad_nonnumeric_multiline.csv", 4, fieldCol(t, multiline, 4, "31.2O"), 2, "decode_tok_s", `"31.2O" is not a number`},
		{"bad_duplicate.csv", 4, 1, 3, "model", `duplicate model "Qwen3-0.6B-4bit" (first at line 2)`},
		{"bad_negative.csv", 3, fieldCol(t, "testdata/bad_negative.csv", 3, "-12.5"), 2, "prefill_tok_s", `"-12.5" is negative`},
		{"bad_prompt_tokens.csv", 2, fieldCol(t, "testdata/bad_prompt_tokens.csv", 2, "512.5"), 1, "prompt_tokens", `"512.5" is not a token count`},
		{"bad_empty_model.csv", 3, 1, 2, "model", "the model name is empty"},
		{"bad_header_only.csv", 1, 0, 0, "", "header but no rows"},
		{"bad_empty.csv", 0, 0, 0, "", "the file is empty"},
		{"bad_ragged.csv", 3, 0, 0, "", "wrong number of fields (the header has 17)"},
		{"bad_quote.csv", 4, 0, 0, "", `extraneous or missing " in quoted-field`},
		{"bad_duplicate_column.csv", 1, 0, 0, "model", "appears twice in the header (fields 1 and 18)"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/" + tt.file
			_, err := Load(path)
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

func TestLoadMissingFileIsIOError(t *testing.T) {
	_, err := Load("testdata/no-such.csv")
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
