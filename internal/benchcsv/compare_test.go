package benchcsv

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func load(t *testing.T, name string) *File {
	t.Helper()
	f, err := Load("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCompareMatchesByModel(t *testing.T) {
	before, after := load(t, "before.csv"), load(t, "after.csv")
	rep, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	// Shared models in the before file's order; the rest listed, not compared.
	var got []string
	for _, m := range rep.Models {
		got = append(got, m.Model)
	}
	if strings.Join(got, ",") != "Qwen3-0.6B-4bit,Llama-3.2-1B-Instruct-4bit" ||
		!reflect.DeepEqual(rep.OnlyBefore, []string{"gemma-3-1b-it-qat-4bit"}) ||
		!reflect.DeepEqual(rep.OnlyAfter, []string{"Mistral-7B-Instruct-v0.3-4bit"}) {
		t.Fatalf("matching: models %v only-before %v only-after %v", got, rep.OnlyBefore, rep.OnlyAfter)
	}
	// The after file lists Llama second too, but matching must not rely on order:
	// check each result against the rows found by name.
	row := func(f *File, model string) Row {
		for _, r := range f.Rows {
			if r.Model == model {
				return r
			}
		}
		t.Fatalf("%s has no %s", f.Name, model)
		return Row{}
	}
	for _, m := range rep.Models {
		b, a := row(before, m.Model), row(after, m.Model)
		if m.Decode.Before != b.DecodeTokS || m.Decode.After != a.DecodeTokS || *m.Decode.Ratio != a.DecodeTokS/b.DecodeTokS ||
			m.Prefill.Before != b.PrefillTokS || m.Prefill.After != a.PrefillTokS || *m.Prefill.Ratio != a.PrefillTokS/b.PrefillTokS {
			t.Errorf("%s: %+v does not match rows %+v / %+v", m.Model, m, b, a)
		}
		if m.BeforeCommit != "3f9c2a1" || m.AfterCommit != "9d04e7b" {
			t.Errorf("%s: commits %q -> %q", m.Model, m.BeforeCommit, m.AfterCommit)
		}
	}
}

func TestCompareOrderIndependent(t *testing.T) {
	before, after := load(t, "before.csv"), load(t, "after.csv")
	want, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	rev := *after
	rev.Rows = nil
	for i := len(after.Rows) - 1; i >= 0; i-- {
		rev.Rows = append(rev.Rows, after.Rows[i])
	}
	got, err := Compare(before, &rev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Models, want.Models) {
		t.Fatalf("reordering the after file changed the results:\n%+v\n%+v", got.Models, want.Models)
	}
}

func TestCompareZeroBeforeHasNoRatio(t *testing.T) {
	before, after := load(t, "before.csv"), load(t, "after.csv")
	before.Rows[0].DecodeTokS = 0
	rep, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Models[0].Decode.Ratio != nil {
		t.Fatalf("ratio to zero: %v", *rep.Models[0].Decode.Ratio)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "n/a") {
		t.Fatalf("table does not show the missing ratio:\n%s", b.String())
	}
}

func TestCompareRefused(t *testing.T) {
	tests := []struct {
		after  string
		column string // "" for no model in common
		values []string
	}{
		{"after_prompt_tokens.csv", "prompt_tokens", []string{`"512"`, `"1024"`, "Llama-3.2-1B-Instruct-4bit"}},
		{"after_hardware.csv", "hardware", []string{`"AMD Radeon RX 7900 XTX (gfx1100)"`, `"NVIDIA GeForce RTX 4090"`}},
		{"after_build_type.csv", "build_type", []string{`"release"`, `"debug"`, "Qwen3-0.6B-4bit"}},
		{"no_common.csv", "", []string{"no model in common"}},
	}
	for _, tt := range tests {
		t.Run(tt.after, func(t *testing.T) {
			dir := t.TempDir()
			report := filepath.Join(dir, "r.json")
			var out bytes.Buffer
			err := Run(&out, "testdata/before.csv", "testdata/"+tt.after, "json:"+report)
			var ref *RefusedError
			if !errors.As(err, &ref) || !isConfig(err) {
				t.Fatalf("want a refused comparison (usage error), got %v", err)
			}
			msg := err.Error()
			for _, want := range append(tt.values, "testdata/before.csv", "testdata/"+tt.after, tt.column) {
				if !strings.Contains(msg, want) {
					t.Errorf("message lacks %q:\n%s", want, msg)
				}
			}
			for _, m := range ref.Mismatches {
				if m.Column != tt.column || m.BeforeLine < 2 || m.AfterLine < 2 {
					t.Errorf("mismatch %+v", m)
				}
			}
			if (tt.column == "") != (len(ref.Mismatches) == 0) {
				t.Errorf("mismatches %+v", ref.Mismatches)
			}
			if out.Len() != 0 {
				t.Errorf("a refused comparison printed a table:\n%s", out.String())
			}
			if _, err := os.Stat(report); !os.IsNotExist(err) {
				t.Errorf("a refused comparison wrote a report: %v", err)
			}
		})
	}
}

func TestCompareBuildTypeCase(t *testing.T) {
	before, after := load(t, "before.csv"), load(t, "after.csv")
	after.Rows[0].BuildType = "Release"
	if _, err := Compare(before, after); err != nil {
		t.Fatalf("Release vs release: %v", err)
	}
}

func TestRunTableAndJSON(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	var out bytes.Buffer
	if err := Run(&out, "testdata/before.csv", "testdata/after.csv", "json:"+report); err != nil {
		t.Fatal(err)
	}
	want, err := Compare(load(t, "before.csv"), load(t, "after.csv"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var got Report
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Fatalf("JSON report differs from the comparison:\n%s", data)
	}
	if fi, err := os.Stat(report); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("report mode: %v %v", fi.Mode(), err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}

	// The table: a header and one line per compared model, all the same width
	// with every column's right edge in the same place.
	lines := strings.Split(out.String(), "\n")
	var table []string
	for _, l := range lines {
		if strings.HasPrefix(l, "model ") || strings.HasPrefix(l, "Qwen3") || strings.HasPrefix(l, "Llama") {
			table = append(table, l)
		}
	}
	if len(table) != 3 {
		t.Fatalf("table lines %q in\n%s", table, out.String())
	}
	edges := func(l string) []int {
		var e []int
		for i := 1; i < len(l); i++ {
			if l[i] == ' ' && l[i-1] != ' ' {
				e = append(e, i)
			}
		}
		return append(e, len(l))
	}
	for _, l := range table[1:] {
		if len(l) != len(table[0]) {
			t.Errorf("line widths differ:\n%s\n%s", table[0], l)
		}
		// Right-aligned numbers end where their header ends.
		he, le := edges(table[0]), edges(l)
		if he[len(he)-1] != le[len(le)-1] {
			t.Errorf("last column misaligned:\n%s\n%s", table[0], l)
		}
	}
	for _, m := range want.Models {
		if !strings.Contains(out.String(), ratio(m.Decode.Ratio)) || !strings.Contains(out.String(), tokS(m.Decode.After)) {
			t.Errorf("table lacks %s's decode figures:\n%s", m.Model, out.String())
		}
	}
	for _, s := range []string{"gemma-3-1b-it-qat-4bit", "Mistral-7B-Instruct-v0.3-4bit", "hardware: AMD Radeon RX 7900 XTX (gfx1100)"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, out.String())
		}
	}
}

func TestReportEnv(t *testing.T) {
	if p, err := ReportPath(""); p != "" || err != nil {
		t.Fatalf("unset: %q %v", p, err)
	}
	if p, err := ReportPath("json:out/r.json"); p != "out/r.json" || err != nil {
		t.Fatalf("json: %q %v", p, err)
	}
	for _, v := range []string{"json:", "yaml:x", "r.json", "JSON"} {
		_, err := ReportPath(v)
		if !isConfig(err) || !strings.Contains(err.Error(), ReportEnv+"=json:<path>") {
			t.Errorf("%q: %v", v, err)
		}
	}
	// A bad variable is reported before any file is read.
	err := Run(&bytes.Buffer{}, "testdata/no-such.csv", "testdata/after.csv", "xml:r")
	var re *ReportEnvError
	if !errors.As(err, &re) {
		t.Fatalf("want the variable's error first, got %v", err)
	}
}

func TestRunIOErrors(t *testing.T) {
	err := Run(&bytes.Buffer{}, "testdata/before.csv", "testdata/no-such.csv", "")
	if err == nil || isConfig(err) || !strings.Contains(err.Error(), "no-such.csv") {
		t.Fatalf("missing file: %v", err)
	}
	err = Run(&bytes.Buffer{}, "testdata/before.csv", "testdata/after.csv", "json:"+filepath.Join(t.TempDir(), "no", "dir", "r.json"))
	if err == nil || isConfig(err) || !strings.Contains(err.Error(), "writing comparison report ") || !strings.Contains(err.Error(), "check that its directory exists") {
		t.Fatalf("unwritable report: %v", err)
	}
}

// TestWriteJSONAtomic rewrites a report while another goroutine reads it:
// every read must see one whole report.
func TestWriteJSONAtomic(t *testing.T) {
	rep, err := Compare(load(t, "before.csv"), load(t, "after.csv"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(path, rep); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	bad := make(chan string, 1)
	go func() {
		defer close(bad)
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			var r Report
			if err != nil || json.Unmarshal(data, &r) != nil {
				bad <- string(data)
				return
			}
		}
	}()
	for i := 0; i < 50; i++ {
		rep.Models[0].Decode.After = float64(i)
		if err := WriteJSON(path, rep); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	if s, ok := <-bad; ok {
		t.Fatalf("a reader saw a partial report: %q", s)
	}
}

// isConfig reports whether err is the user's to fix (exit status 2).
func isConfig(err error) bool { return err != nil && fail.KindOf(err) == fail.Config }
