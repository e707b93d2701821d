package gotest

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The fixtures are real `go test -json ./...` output (Go 1.26) of a small
// module example.com/m: failures.json has a passing package, a package
// without tests, a failing test, a table test with three failing cases
// (one named "x.y*z", one "it's"), a test that panics and a package that
// does not build; timeout.json a package stopped by -timeout while a test
// sleeps; pass.json only passing and test-less packages.

func stream(t testing.TB, fixture string) (*Stream, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	s := &Stream{Out: &out}
	s.Write(data)
	s.Close()
	return s, out.String()
}

func TestStreamListsEveryFailure(t *testing.T) {
	s, out := stream(t, "failures.json")
	want := []Failure{
		{"example.com/m/buildfail", "", "did not build"},
		{"example.com/m/failpkg", "TestFail", "failed"},
		{"example.com/m/failpkg", "TestTable/bad_case", "failed"},
		{"example.com/m/failpkg", "TestTable/x.y*z", "failed"},
		{"example.com/m/failpkg", "TestTable/it's", "failed"},
		{"example.com/m/failpkg", "TestTable", "failed"},
		{"example.com/m/panicpkg", "TestPanics", "failed"},
	}
	if got := s.Failures(); !reflect.DeepEqual(got, want) {
		t.Errorf("failures:\n got %q\nwant %q", got, want)
	}
	if n := s.FailedPackages(); n != 3 {
		t.Errorf("FailedPackages = %d, want 3", n)
	}
	// What plain go test prints: build errors, failed tests' output,
	// each package's result line.
	for _, line := range []string{
		"buildfail/a_test.go:5:40: cannot use \"s\" (untyped string constant) as int value in variable declaration\n",
		"FAIL\texample.com/m/buildfail [build failed]\n",
		"    a_test.go:6: some context\n    a_test.go:6: want 1, got 2\n--- FAIL: TestFail (0.00s)\n",
		"    a_test.go:11: x.y*z broke\n",
		"--- FAIL: TestTable (0.00s)\n",
		"panic: assignment to entry in nil map",
		"FAIL\texample.com/m/failpkg\t",
		"?   \texample.com/m/nopkg\t[no test files]\n",
		"ok  \texample.com/m/okpkg\t",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	// What plain go test leaves out: test2json's framing and the output
	// of tests that passed.
	for _, line := range []string{"=== RUN", "--- PASS", "quiet", "PASS\n"} {
		if strings.Contains(strings.ReplaceAll(out, "FAIL\n", ""), line) {
			t.Errorf("output has %q, which plain go test does not print:\n%s", line, out)
		}
	}
}

func TestSummaryEndsWithRerunCommands(t *testing.T) {
	s, _ := stream(t, "failures.json")
	got := Summary(s.Failures(), s.FailedPackages(), "example.com/m")
	want := `
6 tests in 3 packages failed; run each again with the command under it:
  ./buildfail: did not build
      go test -count=1 ./buildfail
  ./failpkg TestFail: failed
      go test -count=1 -run '^TestFail$' ./failpkg
  ./failpkg TestTable/bad_case: failed
      go test -count=1 -run '^TestTable$/^bad_case$' ./failpkg
  ./failpkg TestTable/x.y*z: failed
      go test -count=1 -run '^TestTable$/^x\.y\*z$' ./failpkg
  ./failpkg TestTable/it's: failed
      go test -count=1 -run '^TestTable$/^it'\''s$' ./failpkg
  ./failpkg TestTable: failed
      go test -count=1 -run '^TestTable$' ./failpkg
  ./panicpkg TestPanics: failed
      go test -count=1 -run '^TestPanics$' ./panicpkg
`
	if got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

func TestTimedOutTestIsNamed(t *testing.T) {
	s, out := stream(t, "timeout.json")
	want := []Failure{{"example.com/m/hang", "TestHangs", "did not finish"}}
	if got := s.Failures(); !reflect.DeepEqual(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
	for _, line := range []string{"    a_test.go:9: waiting\n", "panic: test timed out after 2s\n", "FAIL\texample.com/m/hang\t"} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	got := Summary(s.Failures(), s.FailedPackages(), "example.com/m")
	if !strings.HasPrefix(got, "\n1 test in 1 package failed;") || !strings.Contains(got, "  ./hang TestHangs: did not finish\n      go test -count=1 -run '^TestHangs$' ./hang\n") {
		t.Errorf("summary:\n%s", got)
	}
}

func TestPackageFailingOutsideTests(t *testing.T) {
	in := `{"Action":"start","Package":"m/p"}
{"Action":"output","Package":"m/p","Output":"TestMain said no\n"}
{"Action":"output","Package":"m/p","Output":"FAIL\tm/p\t0.01s\n"}
{"Action":"fail","Package":"m/p","Elapsed":0.01}
go: warning: a line that is not JSON
`
	var out strings.Builder
	s := &Stream{Out: &out}
	s.Write([]byte(in))
	want := []Failure{{"m/p", "", "failed outside any test"}}
	if got := s.Failures(); !reflect.DeepEqual(got, want) {
		t.Errorf("failures = %q, want %q", got, want)
	}
	if !strings.Contains(out.String(), "TestMain said no\n") || !strings.HasSuffix(out.String(), "go: warning: a line that is not JSON\n") {
		t.Errorf("output:\n%s", out.String())
	}
	if got := Summary(s.Failures(), s.FailedPackages(), ""); !strings.Contains(got, "\n1 package failed;") || !strings.Contains(got, "      go test -count=1 m/p\n") {
		t.Errorf("summary:\n%s", got)
	}
}

func TestPassingRunHasNoSummary(t *testing.T) {
	s, out := stream(t, "pass.json")
	if len(s.Failures()) != 0 || s.FailedPackages() != 0 {
		t.Errorf("failures %q in %d packages, want none", s.Failures(), s.FailedPackages())
	}
	if got := Summary(s.Failures(), s.FailedPackages(), "example.com/m"); got != "" {
		t.Errorf("summary of a passing run: %q", got)
	}
	if !strings.Contains(out, "ok  \texample.com/m/okpkg\t") {
		t.Errorf("output:\n%s", out)
	}
}

// TestWritesInPieces: go test's output reaches the stream in pipe-sized
// pieces that cut lines anywhere.
func TestWritesInPieces(t *testing.T) {
	whole, wholeOut := stream(t, "failures.json")
	data, _ := os.ReadFile(filepath.Join("testdata", "failures.json"))
	var out strings.Builder
	s := &Stream{Out: &out}
	for len(data) > 0 {
		n := min(7, len(data))
		s.Write(data[:n])
		data = data[n:]
	}
	s.Close()
	if !reflect.DeepEqual(s.Failures(), whole.Failures()) || out.String() != wholeOut {
		t.Errorf("pieces: %q\nwhole: %q", s.Failures(), whole.Failures())
	}
}

func TestRunPatternSelectsExactlyTheTest(t *testing.T) {
	for _, name := range []string{"TestA", "TestA/b", "TestTable/x.y*z", "TestT/it's", "TestT/a(b)[c]", "TestT/#00", "TestT/sub/deeper"} {
		checkPattern(t, name)
	}
	if got := RunPattern("TestA/case_1"); got != "^TestA$/^case_1$" {
		t.Errorf("RunPattern = %q", got)
	}
}

// checkPattern: each element of RunPattern(name) is a regexp that matches
// that element of name and not a longer name that starts with it.
func checkPattern(t testing.TB, name string) {
	elems := strings.Split(name, "/")
	pats := strings.Split(RunPattern(name), "/")
	if len(pats) != len(elems) {
		// A name element with a slash-free pattern can only differ in
		// count if QuoteMeta wrote a slash, which it never does.
		t.Fatalf("RunPattern(%q) = %q: %d elements for %d", name, RunPattern(name), len(pats), len(elems))
	}
	for i, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("RunPattern(%q) element %q: %v", name, p, err)
		}
		if !re.MatchString(elems[i]) || re.MatchString(elems[i]+"x") {
			t.Errorf("RunPattern(%q) element %q does not select exactly %q", name, p, elems[i])
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"./internal/flow": "./internal/flow",
		"^TestA$":         "'^TestA$'",
		"it's":            `'it'\''s'`,
		"":                "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzStream: any bytes on go test's stdout, JSON or not, in any order:
// the stream never panics, passes every line that is not an event on
// unchanged, and every failure it lists gets a -run pattern that selects
// exactly that test.
func FuzzStream(f *testing.F) {
	for _, fixture := range []string{"failures.json", "timeout.json", "pass.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", fixture))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"Action":"fail","Package":"p","Test":"T/a/b"}` + "\n" + `{"Action":"fail","Package":"p"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out strings.Builder
		s := &Stream{Out: &out}
		s.Write(data)
		s.Close()
		for _, l := range strings.Split(string(data), "\n") {
			if _, ok := parseEvent([]byte(l)); !ok && l != "" && !strings.Contains(out.String(), l) {
				t.Errorf("line %q was not passed on", l)
			}
		}
		for _, fl := range s.Failures() {
			if fl.Test != "" && !strings.Contains(fl.Test, "//") && !strings.HasPrefix(fl.Test, "/") && !strings.HasSuffix(fl.Test, "/") {
				checkPattern(t, fl.Test)
			}
		}
		Summary(s.Failures(), s.FailedPackages(), "m")
	})
}
