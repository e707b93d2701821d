package benchcsv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func load(t *testing.T, name string) *File {
	t.Helper()
	f, err := Load(context.Background(), "testdata/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func catalog(t *testing.T) map[string]string {
	t.Helper()
	a, err := LoadCatalog(context.Background(), "testdata/catalog.tsv", true)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// dropped maps model -> reason.
func dropped(r *Report) map[string]Reason {
	out := map[string]Reason{}
	for _, d := range r.Dropped {
		out[d.Model] = d.Reason
	}
	return out
}

func paired(r *Report) []string {
	var out []string
	for _, p := range r.Pairs {
		out = append(out, p.Model)
	}
	slices.Sort(out)
	return out
}

// TestCompareSameRuntime is the reference's "runtime against its own earlier
// sweep": without -allowCommitChange every pair at another commit is dropped
// and said so; with it they pair. Failed and skipped rows, a prompt beyond the
// tolerance and a non-generative checkpoint are dropped with their reasons,
// whatever the switch; an alias pairs a renamed model.
func TestCompareSameRuntime(t *testing.T) {
	before, after := load(t, "rocm_strix_2026-09-30.csv"), load(t, "rocm_strix_2026-10-02.csv")
	opt := DefaultOptions()
	opt.Aliases = catalog(t)
	rep, err := Compare(before, after, opt)
	if err != nil {
		t.Fatal(err)
	}
	wantDrops := map[string]Reason{
		"bge-m3-embedding":                NonGenerative,
		"gemma-4-31b-it-4bit":             NotMeasured, // FAIL:bench before
		"Qwen3-0.6B-4bit":                 NotMeasured, // SKIP:oom after
		"Meta-Llama-3.1-8B-Instruct-4bit": PromptLength,
		"gpt-oss-20b-MXFP4-Q4":            CommitChange, // paired by alias, -dirty stripped, still another commit
		"Mixtral-8x7B-Instruct-v0.1-4bit": CommitChange, // 513 vs 512 is within 10%
		"Qwen3-30B-A3B-4bit":              CommitChange,
	}
	if got := dropped(rep); !reflect.DeepEqual(got, wantDrops) || len(rep.Pairs) != 0 || rep.Summary != nil || rep.Shared != 7 {
		t.Fatalf("drops %v pairs %v shared %d", got, paired(rep), rep.Shared)
	}

	opt.AllowCommitChange = true
	rep, err = Compare(before, after, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := paired(rep); strings.Join(got, ",") != "Mixtral-8x7B-Instruct-v0.1-4bit,Qwen3-30B-A3B-4bit,gpt-oss-20b-MXFP4-Q4" {
		t.Fatalf("pairs %v, drops %v", got, dropped(rep))
	}
	for _, p := range rep.Pairs {
		b, a := rowOf(t, before, p.BeforeName), rowOf(t, after, p.AfterName)
		if *p.Decode.Ratio != a.DecodeTokS/b.DecodeTokS || *p.Prefill.Ratio != a.PrefillTokS/b.PrefillTokS {
			t.Errorf("%s: ratios %v %v from %v/%v", p.Model, *p.Decode.Ratio, *p.Prefill.Ratio, a.DecodeTokS, b.DecodeTokS)
		}
		if p.Moved != (*p.Decode.Ratio > 1.1 || *p.Decode.Ratio < 0.9) {
			t.Errorf("%s: moved %v at %v", p.Model, p.Moved, *p.Decode.Ratio)
		}
	}
	if rep.Pairs[0].Model != "Mixtral-8x7B-Instruct-v0.1-4bit" || rep.Pairs[0].AfterName != "Mixtral-8x7B-Instruct-v0.1-4bit" {
		t.Errorf("pairs are listed by ratio, highest first: %v", rep.Pairs)
	}
	if g := rowOf(t, after, "gpt-oss-20b-mxfp4"); g.Model != "gpt-oss-20b-mxfp4" {
		t.Fatal("fixture")
	}
	// The median of three is the middle ratio; the quartiles are the values at
	// n/4 and 3n/4 of the sorted ratios.
	r := []float64{*rep.Pairs[2].Decode.Ratio, *rep.Pairs[1].Decode.Ratio, *rep.Pairs[0].Decode.Ratio}
	if s := rep.Summary; s.Median != r[1] || s.Q1 != r[0] || s.Q3 != r[2] || s.Min != r[0] || s.Max != r[2] {
		t.Errorf("summary %+v for ratios %v", *s, r)
	}
}

func rowOf(t *testing.T, f *File, model string) *Row {
	t.Helper()
	for i := range f.Rows {
		if f.Rows[i].Model == model {
			return &f.Rows[i]
		}
	}
	t.Fatalf("%s has no %s", f.Name, model)
	return nil
}

// TestCompareReferenceMode is the reference's "decode at fork parity" check:
// mlxcel against the mlx-lm baseline, other runtime, other build_type and no
// commit column; dates must be within a day instead.
func TestCompareReferenceMode(t *testing.T) {
	before, after := load(t, "pylm_strix_2026-09-29.csv"), load(t, "rocm_strix_2026-09-30.csv")
	opt := DefaultOptions()
	opt.Reference = true
	rep, err := Compare(before, after, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := paired(rep); strings.Join(got, ",") != "Meta-Llama-3.1-8B-Instruct-4bit,Mixtral-8x7B-Instruct-v0.1-4bit,Qwen3-30B-A3B-4bit,gpt-oss-20b-MXFP4-Q4" {
		t.Fatalf("pairs %v drops %v", got, rep.Dropped)
	}
	wantDrops := map[string]Reason{
		"Qwen3-0.6B-4bit":     DateGap,     // measured 2026-09-27, three days before
		"gemma-4-31b-it-4bit": NotMeasured, // FAIL:bench after, no row before: not "measured after only"
		"bge-m3-embedding":    OneSide,
	}
	if got := dropped(rep); !reflect.DeepEqual(got, wantDrops) {
		t.Fatalf("drops %v", got)
	}
	opt.MaxDateGapDays = 3
	rep, _ = Compare(before, after, opt)
	if len(rep.Pairs) != 5 {
		t.Fatalf("with a 3-day window Qwen3-0.6B pairs: %v", rep.Dropped)
	}
}

// TestCompareRefusesOtherHarness: a VLM sweep never pairs with a text one;
// that alone is refused, as a usage error (exit 2).
func TestCompareRefusesOtherHarness(t *testing.T) {
	_, err := Compare(load(t, "rocm_strix_2026-09-30.csv"), load(t, "metal_m5max_vlm_2026-09-06.csv"), DefaultOptions())
	var re *RefusedError
	if !errors.As(err, &re) || !isConfig(err) || !strings.Contains(err.Error(), "vlm") || !strings.Contains(err.Error(), "text") {
		t.Fatalf("want a refusal naming both harnesses, got %v", err)
	}
}

func TestComparePromptTolerance(t *testing.T) {
	before, after := load(t, "rocm_strix_2026-09-30.csv"), load(t, "rocm_strix_2026-10-02.csv")
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	opt.PromptTolerance = 0.2 // 600 vs 512 is 17%
	rep, _ := Compare(before, after, opt)
	if !slices.Contains(paired(rep), "Meta-Llama-3.1-8B-Instruct-4bit") {
		t.Fatalf("a 20%% tolerance pairs 512 with 600: %v", rep.Dropped)
	}
	opt.PromptTolerance = 0
	rep, _ = Compare(before, after, opt)
	if dropped(rep)["Mixtral-8x7B-Instruct-v0.1-4bit"] != PromptLength {
		t.Fatalf("a zero tolerance drops 512 vs 513: %v", rep.Dropped)
	}
	opt = DefaultOptions()
	opt.AllowCommitChange, opt.IncludeNonGenerative = true, true
	rep, _ = Compare(before, after, opt)
	if !slices.Contains(paired(rep), "bge-m3-embedding") {
		t.Fatalf("include-non-generative keeps the embedder: %v", rep.Dropped)
	}
}

func TestCompareZeroBeforeHasNoRatio(t *testing.T) {
	if r := rate(0, 12); r.Ratio != nil {
		t.Fatalf("ratio to nothing: %v", *r.Ratio)
	}
}

func TestCatalog(t *testing.T) {
	a := catalog(t)
	if a["gpt-oss-20b-mxfp4"] != "gpt-oss-20b-MXFP4-Q4" || a["gpt-oss-20b-q4"] != "gpt-oss-20b-MXFP4-Q4" || a["Qwen3-0.6B-4bit"] != "Qwen3-0.6B-4bit" {
		t.Fatalf("aliases %v", a)
	}
	if a, err := LoadCatalog(context.Background(), "testdata/no-such.tsv", false); err != nil || len(a) != 0 {
		t.Fatalf("no catalog at the default path is no aliases: %v %v", a, err)
	}
	if _, err := LoadCatalog(context.Background(), "testdata/no-such.tsv", true); err == nil || isConfig(err) {
		t.Fatalf("a named catalog that is missing is an I/O error: %v", err)
	}
	_, err := LoadCatalog(context.Background(), "testdata/bad_catalog_alias.tsv", true)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(err.Error(), `alias "y" names both A (line 2) and B`) {
		t.Fatalf("an alias of two models: %v", err)
	}
}

// TestRunTableAndJSON runs the whole target's path: the text lists the
// summary, each pair and each drop with its reason; the JSON report holds the
// same comparison.
func TestRunTableAndJSON(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	var out bytes.Buffer
	b, a := "testdata/rocm_strix_2026-09-30.csv", "testdata/rocm_strix_2026-10-02.csv"
	if err := Run(context.Background(), &out, b, a, "testdata/catalog.tsv", true, opt, "json:"+report); err != nil {
		t.Fatal(err)
	}
	opt.Aliases = catalog(t)
	want, err := Compare(load(t, "rocm_strix_2026-09-30.csv"), load(t, "rocm_strix_2026-10-02.csv"), opt)
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
	want.Options = Options{}
	if !reflect.DeepEqual(&got, want) {
		t.Fatalf("JSON report differs from the comparison:\n%s", data)
	}
	if fi, err := os.Stat(report); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("report mode: %v %v", fi.Mode(), err)
	}
	text := out.String()
	var mixtral string
	for l := range strings.Lines(text) {
		if strings.HasPrefix(l, "Mixtral-8x7B-Instruct-v0.1-4bit ") {
			mixtral = l
		}
	}
	if f := strings.Fields(mixtral); len(f) != 7 || f[1] != "7.65" || f[2] != "9.32" || f[3] != "1.218x" || f[4] != "1.002x" {
		t.Errorf("Mixtral's pair line: %q", mixtral)
	}
	for _, s := range []string{
		"(7 rows, 6 measured)",
		"decode ratio (after / before) over 3 pairs: median ",
		"gemma-4-31b-it-4bit              failed before: FAIL:bench; measured after",
		"Qwen3-0.6B-4bit                  measured before; skipped after: SKIP:oom",
		"Meta-Llama-3.1-8B-Instruct-4bit  prompt length 512 -> 600, beyond 10%",
		"bge-m3-embedding                 non-generative checkpoint",
		"moved >10%",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("output lacks %q:\n%s", s, text)
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
	if _, err := ReportPath("json:out/r.json\n"); !isConfig(err) || !strings.Contains(err.Error(), `"out/r.json\n" holds a newline`) {
		t.Errorf("a report path with a newline: %v", err)
	}
	// A bad variable is reported before any file is read.
	err := Run(context.Background(), &bytes.Buffer{}, "testdata/no-such.csv", "testdata/after.csv", "testdata/catalog.tsv", true, DefaultOptions(), "xml:r")
	var re *ReportEnvError
	if !errors.As(err, &re) {
		t.Fatalf("want the variable's error first, got %v", err)
	}
}

func TestRunIOErrors(t *testing.T) {
	err := Run(context.Background(), &bytes.Buffer{}, "testdata/before.csv", "testdata/no-such.csv", "", false, DefaultOptions(), "")
	if err == nil || isConfig(err) || !strings.Contains(err.Error(), "no-such.csv") {
		t.Fatalf("missing file: %v", err)
	}
	// A report path whose folder does not exist is the variable's to fix
	// (exit 2), named with the path.
	missing := filepath.Join(t.TempDir(), "no", "dir", "r.json")
	err = Run(context.Background(), &bytes.Buffer{}, "testdata/before.csv", "testdata/after.csv", "", false, DefaultOptions(), "json:"+missing)
	if !isConfig(err) || !strings.Contains(err.Error(), "writing comparison report "+missing) || !strings.Contains(err.Error(), "MLXBUILD_REPORT") {
		t.Fatalf("report in a missing folder: %v", err)
	}
}

// TestRunReportThroughLink: MLXBUILD_REPORT naming a link writes the
// link's target and leaves the link; the old rename replaced the link.
func TestRunReportThroughLink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "r.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	if err := Run(context.Background(), &bytes.Buffer{}, "testdata/before.csv", "testdata/after.csv", "", false, opt, "json:"+link); err != nil {
		t.Fatal(err)
	}
	var r Report
	if data, err := os.ReadFile(filepath.Join(dir, "real.json")); err != nil || json.Unmarshal(data, &r) != nil {
		t.Errorf("the link's target holds no report: %v %q", err, data)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// TestWriteJSONAtomic rewrites a report while another goroutine reads it:
// every read must see one whole report.
func TestWriteJSONAtomic(t *testing.T) {
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	rep, err := Compare(load(t, "before.csv"), load(t, "after.csv"), opt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(context.Background(), path, rep); err != nil {
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
		rep.Pairs[0].Decode.After = float64(i)
		if err := WriteJSON(context.Background(), path, rep); err != nil {
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
