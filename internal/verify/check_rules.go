package verify

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Rules checks a project's own source conventions (check 8), each rule a
// set of files (globs under Root), regular expressions every one of them
// must match and regular expressions none may match, and optionally the
// number of files the globs must select, so a rule that silently stops
// applying (a renamed folder) fails.
type Rules struct {
	// Root is the directory the globs are relative to.
	Root  string
	Rules []Rule
}

// Rule is one declared source rule.
type Rule struct {
	Name    string
	Files   []string
	Exclude []string
	// MustContain are regular expressions (multi-line mode: ^ and $ match
	// at line ends) each selected file must match.
	MustContain []string
	// MustNotContain are regular expressions no selected file may match.
	MustNotContain []string
	// Count, when above zero, is the number of files the rule must select.
	// A rule that selects no file fails in any case.
	Count int
	// IgnoreComments matches against the code with C/C++ comments blanked.
	IgnoreComments bool
	// Why explains the rule; it becomes the finding's advice.
	Why string
}

// Name is the check's name in reports.
func (Rules) Name() string { return "rules" }

// Run applies every rule.
func (c Rules) Run(ctx context.Context) Result {
	var fs []Finding
	for _, r := range c.Rules {
		fs = append(fs, c.apply(r)...)
	}
	return result(c.Name(), fs, plural.Count(len(c.Rules), "rule"))
}

func (c Rules) apply(r Rule) []Finding {
	compile := func(key string, pats []string) ([]*regexp.Regexp, []Finding) {
		var res []*regexp.Regexp
		var fs []Finding
		for _, p := range pats {
			re, err := regexp.Compile("(?m)" + p)
			if err != nil {
				fs = append(fs, Finding{Message: fmt.Sprintf("rule %q: %s pattern %q: %v", r.Name, key, p, err),
					Fix: "correct the pattern (Go RE2 syntax; escape ( as \\()"})
				continue
			}
			res = append(res, re)
		}
		return res, fs
	}
	must, fs := compile("must_contain", r.MustContain)
	mustNot, fs2 := compile("must_not_contain", r.MustNotContain)
	if fs = append(fs, fs2...); len(fs) > 0 {
		return fs
	}
	files, err := selectFiles(c.Root, r.Files, r.Exclude)
	if err != nil {
		return []Finding{{File: c.Root, Message: fmt.Sprintf("rule %q: cannot search: %v", r.Name, err), Fix: "check the rules' root:"}}
	}
	advice := r.Why
	if advice == "" {
		advice = fmt.Sprintf("follow rule %q", r.Name)
	}
	if len(files) == 0 {
		return []Finding{{Message: fmt.Sprintf("rule %q selects no file under %s (files: %s)", r.Name, c.Root, strings.Join(r.Files, ", ")),
			Fix: "correct the rule's files: globs, or delete the rule if it no longer applies"}}
	}
	if r.Count > 0 && len(files) != r.Count {
		fs = append(fs, Finding{Message: fmt.Sprintf("rule %q selects %s, declared count: %d", r.Name, plural.Count(len(files), "file"), r.Count),
			Fix: fmt.Sprintf("check which files entered or left the rule, then set count: %d", len(files))})
	}
	for _, rel := range files {
		file := display(c.Root, rel)
		data, err := os.ReadFile(file)
		if err != nil {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		if r.IgnoreComments {
			data = blankCpp(data, false)
		}
		for i, re := range must {
			if !re.Match(data) {
				fs = append(fs, Finding{File: file, Message: fmt.Sprintf("rule %q: does not contain %s", r.Name, r.MustContain[i]), Fix: advice})
			}
		}
		for i, re := range mustNot {
			for _, loc := range re.FindAllIndex(data, -1) {
				fs = append(fs, Finding{File: file, Line: lineOf(data, loc[0]),
					Message: fmt.Sprintf("rule %q: contains %q, which matches the forbidden %s", r.Name, clipText(strings.TrimSpace(string(data[loc[0]:loc[1]]))), r.MustNotContain[i]),
					Fix:     advice})
			}
		}
	}
	return fs
}
