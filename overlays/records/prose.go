package records

import (
	"fmt"
	"strings"
)

// The reference's LOCAL_FIXES.md has no Status lines: each fix to the fork's
// code ends with a sentence such as "Applies to the fork; to be proposed
// there.", and the changes that only move the fork onto the MLX pin sit
// under a "Retarget onto the MLX pin" heading with no sentence of their own.
// These phrases are what its authors write; matching is case-insensitive and
// treats any run of spaces and line breaks as one space.
var (
	retargetPhrases = []string{"retarget-only", "retarget only"}
	forkPhrases     = []string{"applies to the fork", "apply to the fork"}
	proposePhrases  = []string{"to be proposed"}
)

// classify gives an item without a Status line the status its prose or,
// failing that, its section heading states. An item whose prose says both
// retarget-only and applies-to-the-fork is left unknown with a Problem,
// since either reading could be the wrong one.
func classify(it *Item, prose string) (Problem, bool) {
	text := normalizeSpace(prose)
	retarget := containsAny(text, retargetPhrases)
	fork := containsAny(text, forkPhrases)
	propose := containsAny(text, proposePhrases)
	switch {
	case retarget && (fork || propose):
		return Problem{Line: it.line,
			Message: fmt.Sprintf("item %d says both that it is retarget-only and that it applies to the fork", it.Number),
			Fix:     "keep one of the two statements, or add a `Status:` line that settles it"}, false
	case retarget:
		it.Status, it.StatusFrom = StatusRetargetOnly, SourceProse
	case propose:
		it.Status, it.StatusFrom = StatusToBeProposed, SourceProse
	case fork:
		it.Status, it.StatusFrom = StatusAppliesToFork, SourceProse
	default:
		// The section decides: "Retarget onto the MLX pin (81ba1c6a)" holds
		// retarget-only changes, "Fixes to the fork's kernels", "Fixes to the
		// fork's build" and "Additions to the fork's API" hold fork changes.
		sec := normalizeSpace(it.section)
		switch {
		case strings.Contains(sec, "retarget"):
			it.Status, it.StatusFrom = StatusRetargetOnly, SourceSection
		case containsAny(sec, []string{"the fork's", "to the fork"}):
			it.Status, it.StatusFrom = StatusAppliesToFork, SourceSection
		}
	}
	return Problem{}, true
}

// normalizeSpace lowercases s and collapses every run of white space, so a
// phrase broken across lines still matches.
func normalizeSpace(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
