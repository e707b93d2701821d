package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceSamples reads the reference's two real LOCAL_FIXES.md
// versions (verbatim copies in testdata/reference): every item is found,
// the out-of-order numbering of the newer one is no problem, and every item
// gets a status from its prose or its section, as the reference's own
// records state it; none is left unknown.
func TestReferenceSamples(t *testing.T) {
	for _, tc := range []struct {
		file                       string
		items                      int
		order                      []int // the first numbers out of place, as written
		retarget, propose, applies int
		fromSection, fromProse     int
	}{
		{"LOCAL_FIXES.older.md", 18, nil, 7, 11, 0, 7, 11},
		{"LOCAL_FIXES.mid-df8bc628.md", 38, []int{25, 27}, 6, 23, 9, 9, 29}, // item 7 sits under the retarget heading but says "Applies to the fork"
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "reference", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			lf, probs := ParseLocalFixes(data)
			if len(probs) != 0 {
				t.Errorf("problems on the real file: %v", probs)
			}
			if p := lf.Numbering(); len(p) != 0 {
				t.Errorf("numbering problems on the real file: %v", p)
			}
			if len(lf.Items) != tc.items {
				t.Fatalf("items = %d, want %d", len(lf.Items), tc.items)
			}
			if tc.order != nil {
				found := false
				for i := 1; i < len(lf.Items); i++ {
					if lf.Items[i-1].Number == tc.order[0] && lf.Items[i].Number == tc.order[1] {
						found = true
					}
				}
				if !found {
					t.Errorf("no item %d followed by item %d: the sample's out-of-order numbering was not kept", tc.order[0], tc.order[1])
				}
			}
			count := map[Status]int{}
			from := map[statusSource]int{}
			for _, it := range lf.Items {
				count[it.Status]++
				from[it.StatusFrom]++
				if it.Status == StatusUnknown {
					t.Errorf("item %d (%s, section %q) has no status", it.Number, it.Title, it.section)
				}
			}
			if count[StatusRetargetOnly] != tc.retarget || count[StatusToBeProposed] != tc.propose || count[StatusAppliesToFork] != tc.applies {
				t.Errorf("statuses = %v, want %d retarget-only, %d to be proposed, %d applies to the fork", count, tc.retarget, tc.propose, tc.applies)
			}
			if from[SourceSection] != tc.fromSection || from[SourceProse] != tc.fromProse || from[sourceLine] != 0 {
				t.Errorf("sources = %v, want %d from sections and %d from prose", from, tc.fromSection, tc.fromProse)
			}
		})
	}
}

// TestDroppedReferenceSamples: both real samples list the fork's two
// custom-kernel hooks under "## Dropped from the vendored set".
func TestDroppedReferenceSamples(t *testing.T) {
	for _, name := range []string{"LOCAL_FIXES.older.md", "LOCAL_FIXES.mid-df8bc628.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", "reference", name))
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(Dropped(data), ",")
		if got != "mlx/backend/metal/custom_kernel.cpp,mlx/backend/cuda/custom_kernel.cpp" {
			t.Errorf("%s: dropped %s", name, got)
		}
	}
}
