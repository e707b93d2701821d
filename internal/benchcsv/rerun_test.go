package benchcsv

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The before side is the reference's real ROCm sweep; the after side is a
// sweep shaped as the reference's later runs are: a re-run of one model
// appended to the file, a row whose status is FAIL:no_output although its
// other fields parsed, a decode rate that is not a number, and a model that
// failed on this side only.
const (
	realROCm = "testdata/reference/rocm_strixhalo-gfx1151_2026-09-30.csv"
	rerun    = "testdata/rocm_strixhalo-gfx1151_2026-10-05.csv"
)

// TestCompareRerunKeepsLaterRow: the reference keys rows by model, so a
// later row replaces an earlier one; the comparison does the same and the
// report says which line it left out.
func TestCompareRerunKeepsLaterRow(t *testing.T) {
	before, err := Load(context.Background(), realROCm)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Load(context.Background(), rerun)
	if err != nil {
		t.Fatalf("a re-run appended to a sweep must be read: %v", err)
	}
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	rep, err := Compare(before, after, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(paired(rep), ","); got != "Meta-Llama-3.1-8B-Instruct-4bit,Qwen3-0.6B-4bit,Qwen3-30B-A3B-4bit" {
		t.Fatalf("pairs %s, drops %v", got, rep.Dropped)
	}
	for _, p := range rep.Pairs {
		if p.Model == "Qwen3-0.6B-4bit" && p.Decode.After != 281.20 {
			t.Errorf("Qwen3-0.6B-4bit compares its later row (281.20), got %v", p.Decode.After)
		}
	}
	if want := []Replaced{{File: rerun, Model: "Qwen3-0.6B-4bit", Line: 5, KeptLine: 8}}; !reflect.DeepEqual(rep.Replaced, want) {
		t.Errorf("replaced %+v, want %+v", rep.Replaced, want)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, rep, before, after); err != nil {
		t.Fatal(err)
	}
	if s := rerun + ":5  Qwen3-0.6B-4bit: line 8 is compared instead"; !strings.Contains(out.String(), s) {
		t.Errorf("the report does not say which row was replaced (%q):\n%s", s, out.String())
	}
}

// TestCompareSkipsUnreadableRows: a FAIL:no_output row with its other fields
// parsed, a non-numeric decode rate and a model that failed on one side are
// each left out with what they are, and the rest of the file is compared.
func TestCompareSkipsUnreadableRows(t *testing.T) {
	var out bytes.Buffer
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	if err := Run(context.Background(), &out, realROCm, rerun, "", false, opt, ""); err != nil {
		t.Fatalf("the file must be compared, its bad rows skipped: %v", err)
	}
	text := out.String()
	for _, s := range []string{
		"(7 rows, 4 measured)",
		"gpt-oss-20b-MXFP4-Q4             measured before; unreadable after: column decode_tok_s (col ",
		`): "8.1O" is not a number (line 2)`,
		"Mixtral-8x7B-Instruct-v0.1-4bit  measured before; failed after: FAIL:no_output",
		"gemma-4-31b-it-4bit              no row before; failed after: FAIL:bench",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
		}
	}
	if strings.Contains(text, "measured after only") {
		t.Errorf("a model that failed is not 'measured after only':\n%s", text)
	}
}

// TestReferenceAndAllowCommitChangeRefused: the two options say opposite
// things about the files; the pair is refused as a usage error (exit 2)
// before any file is read.
func TestReferenceAndAllowCommitChangeRefused(t *testing.T) {
	opt := DefaultOptions()
	opt.Reference, opt.AllowCommitChange = true, true
	err := Run(context.Background(), &bytes.Buffer{}, "testdata/no-such.csv", rerun, "", false, opt, "")
	var oe *OptionsError
	if !errors.As(err, &oe) || !isConfig(err) || !strings.Contains(err.Error(), "-reference and -allowCommitChange") {
		t.Fatalf("want the pair of options refused (exit 2), got %v", err)
	}
}
