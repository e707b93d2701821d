package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// sampleResults has one result of each kind, with findings that have a
// location, a file only, and no file.
func sampleResults() []Result {
	return []Result{
		{Check: "records", Status: Pass},
		{Check: "integrity", Status: Fail, Reason: "4 files compared", Findings: []Finding{
			{File: "cache/rocm/tree/mlx/backend/gpu/copy.cpp", Line: 2, Message: "hand edit: differs from overlay/mlx/backend/gpu/copy.cpp", Fix: "move the change into the overlay, then run overlay:apply"},
			{File: "cache/rocm/tree/LOCAL_FIXES.md", Message: "records file LOCAL_FIXES.md was copied into the tree", Fix: "delete it"},
		}},
		{Check: "kernel_keys", Status: Fail, Findings: []Finding{{Message: "kernel_keys declares count: 3 but 4 files are in scope", Fix: "set count: 4"}}},
		{Check: "link", Status: Skip, Reason: "no built output at out/libmlx.so yet (run build first)"},
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestWriteTextGolden(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, sampleResults(), false)
	golden(t, "report.txt", b.Bytes())

	b.Reset()
	WriteText(&b, sampleResults(), true)
	if !strings.Contains(b.String(), "\x1b[") || !strings.Contains(b.String(), "FAIL") {
		t.Errorf("color=true wrote no escape codes:\n%q", b.String())
	}
}

func TestWriteJUnit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verify.xml")
	if err := WriteJUnit(context.Background(), path, sampleResults()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.xml", data)
	var got junitSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	s := got.Suites[0]
	if s.Tests != 4 || s.Failures != 2 || s.Skipped != 1 || s.Cases[3].Skipped == nil || s.Cases[0].Failure != nil {
		t.Errorf("suite = %+v", s)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestWriteJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verify.json")
	if err := WriteJSON(context.Background(), path, sampleResults()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report.json", data)
	var got jsonReport
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Passed != 1 || got.Failed != 2 || got.Skipped != 1 || got.Checks[1].Findings[0].Line != 2 {
		t.Errorf("report = %+v", got)
	}
	// A directory in the way is an error that names the path.
	dir := t.TempDir()
	if err := WriteJSON(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "writing verify report "+dir+": ") {
		t.Errorf("writing over a directory: %v", err)
	}
}

func TestReportsFromEnv(t *testing.T) {
	for v, want := range map[string][]Report{
		"":                          nil,
		"junit:out/verify.xml":      {{"junit", "out/verify.xml"}},
		"json:C:/x.json":            {{"json", "C:/x.json"}},
		"junit:a.xml, json:b.json,": {{"junit", "a.xml"}, {"json", "b.json"}},
	} {
		got, err := ReportsFromEnv(v)
		if err != nil || len(got) != len(want) {
			t.Errorf("ReportsFromEnv(%q) = %v, %v; want %v", v, got, err, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("ReportsFromEnv(%q)[%d] = %v, want %v", v, i, got[i], want[i])
			}
		}
	}
	for _, v := range []string{"xml:out.xml", "junit:", "junit", "out.xml", "junit:a.xml,b.json"} {
		if _, err := ReportsFromEnv(v); err == nil || !strings.Contains(err.Error(), "MLXBUILD_REPORT") {
			t.Errorf("ReportsFromEnv(%q) error = %v, want one naming MLXBUILD_REPORT", v, err)
		}
	}
}

// TestNotRunFailsEveryReport: a check the gate could not run counts as a
// failure in the exit status and in JUnit, and by its own name elsewhere.
func TestNotRunFailsEveryReport(t *testing.T) {
	rs := []Result{{Check: "records", Status: Pass}, {Check: "link", Status: NotRun, Reason: "needs the build, which failed"}}
	if !Failed(rs) {
		t.Error("Failed ignores a check that was not run")
	}
	var b bytes.Buffer
	WriteText(&b, rs, false)
	if !strings.Contains(b.String(), "NRUN  link: needs the build, which failed\n") || !strings.HasSuffix(b.String(), "1 passed, 0 failed, 0 skipped, 1 not run\n") {
		t.Errorf("text report:\n%s", b.String())
	}
	dir := t.TempDir()
	if err := WriteReports(context.Background(), []Report{{"junit", filepath.Join(dir, "v.xml")}, {"json", filepath.Join(dir, "v.json")}}, rs); err != nil {
		t.Fatal(err)
	}
	var suites junitSuites
	data, _ := os.ReadFile(filepath.Join(dir, "v.xml"))
	if err := xml.Unmarshal(data, &suites); err != nil || suites.Suites[0].Failures != 1 || suites.Suites[0].Cases[1].Failure == nil {
		t.Errorf("JUnit: %v\n%s", err, data)
	}
	var rep jsonReport
	data, _ = os.ReadFile(filepath.Join(dir, "v.json"))
	if err := json.Unmarshal(data, &rep); err != nil || rep.NotRun != 1 || rep.Checks[1].Status != "not-run" {
		t.Errorf("JSON: %v\n%s", err, data)
	}
}

type fakeCheck struct {
	name string
	run  func(ctx context.Context) Result
}

func (f fakeCheck) Name() string                   { return f.name }
func (f fakeCheck) Run(ctx context.Context) Result { return f.run(ctx) }

func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checks := []Check{
		fakeCheck{"ok", func(context.Context) Result { return Result{Status: Pass} }},
		fakeCheck{"boom", func(context.Context) Result { panic("index out of range") }},
		fakeCheck{"cancel", func(context.Context) Result { cancel(); return Result{Check: "cancel", Status: Pass} }},
		fakeCheck{"late", func(context.Context) Result { t.Error("ran after cancel"); return Result{} }},
	}
	rs := Run(ctx, checks)
	if len(rs) != 4 || rs[0].Check != "ok" || rs[0].Status != Pass {
		t.Fatalf("results = %+v", rs)
	}
	if rs[1].Status != Fail || !strings.Contains(rs[1].Findings[0].Message, "panic: index out of range") {
		t.Errorf("a panicking check: %+v", rs[1])
	}
	if rs[3].Status != Skip || !strings.Contains(rs[3].Reason, "canceled") {
		t.Errorf("a check after cancel: %+v", rs[3])
	}
	if !Failed(rs) || Failed(rs[:1]) {
		t.Error("Failed disagrees with the statuses")
	}
}

// TestReportsAsTheUserMeans: MLXBUILD_REPORT naming a link to a device (as
// /dev/stdout is), a link to a file or a FIFO with a reader writes into
// what it names and leaves it as it is (the old rename replaced each with a
// regular file); a folder that does not exist is refused as configuration
// (the old writer created it).
func TestReportsAsTheUserMeans(t *testing.T) {
	ctx, rs := context.Background(), sampleResults()
	dir := t.TempDir()
	toDevice, toFile, fifo := filepath.Join(dir, "dev.xml"), filepath.Join(dir, "file.json"), filepath.Join(dir, "r.fifo")
	if err := os.Symlink("/dev/null", toDevice); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.json", toFile); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	reader, err := os.OpenFile(fifo, os.O_RDWR, 0) // a reader that never blocks the open
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := WriteReports(ctx, []Report{{"junit", toDevice}, {"json", toFile}, {"json", fifo}}, rs); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{toDevice, toFile} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", err) // its reader would wait for ever
	}
	var rep jsonReport
	if data, err := os.ReadFile(filepath.Join(dir, "real.json")); err != nil || json.Unmarshal(data, &rep) != nil {
		t.Errorf("the link's target holds no report: %v %q", err, data)
	}
	if err := json.NewDecoder(reader).Decode(&rep); err != nil {
		t.Errorf("the FIFO's reader got no report: %v", err)
	}
	missing := filepath.Join(dir, "no", "v.xml")
	err = WriteReports(ctx, []Report{{"junit", missing}}, rs)
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), ReportEnv) {
		t.Errorf("report in a missing folder: %v, want a configuration error naming %s and %s", err, missing, ReportEnv)
	}
}

// TestTextEscapesQuotedContent: a finding that quotes a file's line holding
// an ESC sequence, in a file whose name holds one, prints them escaped; the
// message's own line breaks stay (indented). They were printed raw.
func TestTextEscapesQuotedContent(t *testing.T) {
	rs := []Result{{Check: "rules", Status: Fail, Findings: []Finding{{
		File: "mlx/a\x1b[2J.cpp", Line: 3, Message: "forbidden: `printf(\"\x1b[31m\")`\nsecond line", Fix: "remove \x1b[0m",
	}}}}
	var b bytes.Buffer
	WriteText(&b, rs, false)
	out := b.String()
	if strings.ContainsRune(out, 0x1b) || !strings.Contains(out, `mlx/a\x1b[2J.cpp:3: forbidden: `+"`"+`printf("\x1b[31m")`+"`\n        second line\n") {
		t.Errorf("text report:\n%s", out)
	}
}
