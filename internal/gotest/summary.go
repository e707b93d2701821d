package gotest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Summary is the list to end a failed run with: one line per failure,
// grouped by package in the order they failed, each followed by the
// command that re-runs just that. module is the main module's path, so a
// package is written as go test takes it from the module root
// (./internal/flow); empty leaves import paths as they are. Summary is
// empty when nothing failed.
func Summary(failures []Failure, failedPackages int, module string) string {
	if len(failures) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s; run each again with the command under it:\n", headline(failures, failedPackages))
	for _, f := range failures {
		pkg := relative(f.Package, module)
		if f.Test == "" {
			fmt.Fprintf(&b, "  %s: %s\n", pkg, f.Why)
		} else {
			fmt.Fprintf(&b, "  %s %s: %s\n", pkg, f.Test, f.Why)
		}
		fmt.Fprintf(&b, "      %s\n", Rerun(f, module))
	}
	return b.String()
}

// headline says how much failed: "6 tests in 3 packages failed", or
// "1 package failed" when no test did.
func headline(failures []Failure, failedPackages int) string {
	tests := 0
	for _, f := range failures {
		if f.Test != "" {
			tests++
		}
	}
	head := plural.Count(failedPackages, "package") + " failed"
	if tests > 0 {
		head = plural.Count(tests, "test") + " in " + head
	}
	return head
}

// Rerun is the shell command that runs f again alone: its test and its
// subtests' path anchored (-run '^TestA$/^case_1$'), or its whole package.
func Rerun(f Failure, module string) string {
	args := []string{"go", "test", "-count=1"}
	if f.Test != "" {
		args = append(args, "-run", shellQuote(RunPattern(f.Test)))
	}
	return strings.Join(append(args, shellQuote(relative(f.Package, module))), " ")
}

// RunPattern is the -run pattern that selects exactly test, a full name as
// go test prints it: each slash-separated element quoted and anchored, as
// -run matches them element by element.
func RunPattern(test string) string {
	elems := strings.Split(test, "/")
	for i, e := range elems {
		elems[i] = "^" + regexp.QuoteMeta(e) + "$"
	}
	return strings.Join(elems, "/")
}

// relative writes pkg as a path from the module root when it is in module.
func relative(pkg, module string) string {
	switch {
	case module == "":
		return pkg
	case pkg == module:
		return "."
	case strings.HasPrefix(pkg, module+"/"):
		return "./" + strings.TrimPrefix(pkg, module+"/")
	}
	return pkg
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
