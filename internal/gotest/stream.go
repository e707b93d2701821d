package gotest

import (
	"bytes"
	"io"
	"strings"
)

// Failure is one failed test, or a package that failed with no failed
// test to show for it (it did not build, or it died outside a test).
type Failure struct {
	Package string // import path
	Test    string // full test name ("TestA/case_1"); empty for a package-level failure
	Why     string // "failed", "did not finish", "did not build", "failed outside any test"
}

// Stream is an io.Writer for `go test -json`'s standard output. What it
// writes to Out is plain go test's output: package result lines, build
// errors, and the output of each failed test (a passing test's output is
// dropped, as go test drops it without -v). Failures lists what failed.
type Stream struct {
	Out io.Writer

	partial  []byte
	running  map[testKey]*testRun
	started  []testKey // running tests in the order they started
	failures []Failure
	// failedTests counts the tests of each package that Failures lists.
	failedTests map[string]int
	packages    map[string]bool // every package that reported a result, and whether it failed
}

type testKey struct{ pkg, test string }

// testRun is a test that started and has not ended: its output so far,
// with the output of its failed subtests appended as they end.
type testRun struct {
	out bytes.Buffer
}

// Write takes any part of the stream; lines are handled as they complete.
func (s *Stream) Write(p []byte) (int, error) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(s.partial[:i])
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

// Close handles a last line that has no newline.
func (s *Stream) Close() error {
	if len(s.partial) > 0 {
		s.line(s.partial)
		s.partial = nil
	}
	return nil
}

// Failures is every failure seen so far, in the order they happened.
func (s *Stream) Failures() []Failure { return s.failures }

// FailedPackages is how many packages failed.
func (s *Stream) FailedPackages() int {
	n := 0
	for _, failed := range s.packages {
		if failed {
			n++
		}
	}
	return n
}

func (s *Stream) line(l []byte) {
	e, ok := parseEvent(l)
	if !ok {
		s.print(string(l) + "\n")
		return
	}
	switch {
	case e.Action == "build-output":
		s.print(e.Output)
	case e.Test != "":
		s.testEvent(e)
	case e.Package != "":
		s.packageEvent(e)
	}
}

func (s *Stream) print(out string) {
	if s.Out != nil {
		io.WriteString(s.Out, out)
	}
}

func (s *Stream) testEvent(e event) {
	k := testKey{e.Package, e.Test}
	r := s.running[k]
	switch e.Action {
	case "run":
		if r == nil {
			s.start(k)
		}
	case "output":
		if r == nil {
			// Output of a test whose run event was not seen: keep it
			// as if it had started here.
			r = s.start(k)
		}
		if !framing(e.Output) {
			r.out.WriteString(e.Output)
		}
	case "pass", "skip":
		s.end(k)
	case "fail":
		if r == nil {
			r = s.start(k)
		}
		s.end(k)
		s.fail(Failure{Package: e.Package, Test: e.Test, Why: "failed"})
		s.handOn(k, r.out.Bytes())
	}
}

func (s *Stream) start(k testKey) *testRun {
	if s.running == nil {
		s.running = map[testKey]*testRun{}
	}
	r := &testRun{}
	s.running[k] = r
	s.started = append(s.started, k)
	return r
}

func (s *Stream) end(k testKey) {
	delete(s.running, k)
	for i, sk := range s.started {
		if sk == k {
			s.started = append(s.started[:i], s.started[i+1:]...)
			break
		}
	}
}

// handOn gives a failed test's output to its parent, which prints it
// when it ends (a subtest's failure fails its parent), or prints it for a
// top-level test.
func (s *Stream) handOn(k testKey, out []byte) {
	if p := parent(k.test); p != "" {
		if pr := s.running[testKey{k.pkg, p}]; pr != nil {
			pr.out.Write(out)
			return
		}
	}
	s.print(string(out))
}

func (s *Stream) packageEvent(e event) {
	switch e.Action {
	case "output":
		// Plain go test prints a passing package's result line alone.
		if e.Output != "PASS\n" {
			s.print(e.Output)
		}
		return
	case "pass", "skip":
		s.dropRunning(e.Package)
		s.result(e.Package, false)
	case "fail":
		unfinished := s.unfinished(e.Package)
		switch {
		case e.FailedBuild != "":
			s.fail(Failure{Package: e.Package, Why: "did not build"})
		case len(unfinished) > 0:
			for _, t := range unfinished {
				s.fail(Failure{Package: e.Package, Test: t, Why: "did not finish"})
			}
		case s.failedTests[e.Package] == 0:
			s.fail(Failure{Package: e.Package, Why: "failed outside any test"})
		}
		s.result(e.Package, true)
	}
}

func (s *Stream) result(pkg string, failed bool) {
	if s.packages == nil {
		s.packages = map[string]bool{}
	}
	s.packages[pkg] = failed
}

// unfinished prints the output of pkg's tests that never ended (the
// package timed out or crashed while they ran) and names the innermost
// of them: the tests to look at.
func (s *Stream) unfinished(pkg string) []string {
	var names []string
	var keys []testKey
	for _, k := range s.started {
		if k.pkg == pkg {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		s.print(s.running[k].out.String())
	}
	for _, k := range keys {
		inner := false
		for _, o := range keys {
			if strings.HasPrefix(o.test, k.test+"/") {
				inner = true
				break
			}
		}
		if !inner {
			names = append(names, k.test)
		}
	}
	s.dropRunning(pkg)
	return names
}

func (s *Stream) dropRunning(pkg string) {
	kept := s.started[:0]
	for _, k := range s.started {
		if k.pkg == pkg {
			delete(s.running, k)
			continue
		}
		kept = append(kept, k)
	}
	s.started = kept
}

func (s *Stream) fail(f Failure) {
	s.failures = append(s.failures, f)
	if f.Test != "" {
		if s.failedTests == nil {
			s.failedTests = map[string]int{}
		}
		s.failedTests[f.Package]++
	}
}
