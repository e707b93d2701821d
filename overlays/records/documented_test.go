package records

import (
	"slices"
	"testing"
)

// TestDocumentedRecordForms holds docs/reference-checks.md's "What the
// records must say, before the first verify:rocm" to the parser: each way
// it documents of giving an item its status gives that status, an item
// with none is what require_status flags, a line whose title is not bold is
// a problem, and each heading word it lists starts the dropped list.
func TestDocumentedRecordForms(t *testing.T) {
	doc := "# Local fixes\n\n" +
		"## Fixes to the fork's kernels\n\n" +
		"1. **A Status line.** `a.hip`\n   Status: retarget-only\n\n" +
		"2. **Bold and bulleted.** `b.hip`\n   - **Status:** to be proposed.\n\n" +
		"3. **Proposed.** `c.hip`\n   Status: proposed https://github.com/owner/repo/pull/7\n\n" +
		"4. **Prose, retarget.** `d.hip` is retarget only.\n\n" +
		"5. **Prose, proposal.** `e.hip` is to be\n   proposed.\n\n" +
		"6. **Prose, fork.** `f.hip`: Applies to the fork.\n\n" +
		"7. **The section decides.** `g.hip`\n\n" +
		"## Retarget onto the MLX pin\n\n" +
		"8. **The retarget section decides.** `h.cpp`\n\n" +
		"## Notes\n\n" +
		"9. **Nothing anywhere.** `i.cpp`\n"
	lf, probs := ParseLocalFixes([]byte(doc))
	if len(probs) != 0 {
		t.Fatalf("problems: %+v", probs)
	}
	want := []Status{StatusRetargetOnly, StatusToBeProposed, StatusProposed, StatusRetargetOnly, StatusToBeProposed,
		StatusAppliesToFork, StatusAppliesToFork, StatusRetargetOnly, StatusUnknown}
	var got []Status
	for _, it := range lf.Items {
		got = append(got, it.Status)
	}
	if !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	g := Gate{RequireStatus: true}
	if fs := g.status("LOCAL_FIXES.md", lf, probs); len(fs) != 1 || fs[0].Line != lf.Items[8].line {
		t.Errorf("require_status findings %+v, want one, for item 9", fs)
	}
	for _, bad := range []string{"1. **Both.** retarget-only, and applies to the fork.\n", "1. **Unknown.**\nStatus: maybe\n", "1. Not bold.\n"} {
		if _, probs := ParseLocalFixes([]byte(bad)); len(probs) == 0 {
			t.Errorf("%q: no problem, the doc says it is one", bad)
		}
	}
	for _, heading := range []string{"## Dropped from the vendored set", "### Files not carried", "# NOT VENDORED", "## Left out"} {
		if got := Dropped([]byte(heading + "\n\n- `mlx/x.cpp`\n\n## Next\n\n- `mlx/y.cpp`\n")); !slices.Equal(got, []string{"mlx/x.cpp"}) {
			t.Errorf("%q lists %q, want [mlx/x.cpp]", heading, got)
		}
	}
}
