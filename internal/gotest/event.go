// Package gotest reads `go test -json` as it streams. It prints what plain
// `go test` prints (each package's result line, the output of the tests
// that failed, build errors) and keeps every failure, so that a run of the
// whole suite can end with the list of what failed and the command that
// re-runs each, instead of leaving the first failure somewhere above.
package gotest

import (
	"encoding/json"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, and
// the build-output and build-fail events go test adds since Go 1.24).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
	// ImportPath names the package of a build-output or build-fail event
	// ("pkg [pkg.test]"); FailedBuild is set on a package's fail event
	// when the package failed because it did not build.
	ImportPath  string
	FailedBuild string
}

// parseEvent reads one line. ok is false for a line that is not an event
// (go test prints some of its own errors as plain text): the caller
// passes such a line on as it is.
func parseEvent(line []byte) (event, bool) {
	var e event
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil || e.Action == "" {
		return event{}, false
	}
	return e, true
}

// parent is the name of the test that ran test ("TestA" for "TestA/b"),
// or "" for a top-level test.
func parent(test string) string {
	i := strings.LastIndexByte(test, '/')
	if i < 0 {
		return ""
	}
	return test[:i]
}

// framing says whether a line of test output is test2json's own framing,
// which plain `go test` does not print: "=== RUN", "=== PAUSE", "=== CONT"
// and "=== NAME" lines.
func framing(out string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return false
}
