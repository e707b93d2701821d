package verify

import (
	"os"
	"path/filepath"
	"testing"
)

const testPin = "81ba1c6a0f4d2e8b9c3a5d7e1f2a4b6c8d0e2f41"

func TestRecordsClean(t *testing.T) {
	mustPass(t, Records{Overlay: "testdata/records/clean", Pin: testPin, RequireStatus: true})
}

func TestRecordsDefects(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, loc, msg string
	}{
		{"gap in numbering", "LOCAL_FIXES.md", "3. **Wave32 guards.**", "4. **Wave32 guards.**", "LOCAL_FIXES.md:11", "gap in numbering: no item 3"},
		{"duplicate number", "LOCAL_FIXES.md", "3. **Wave32 guards.**", "2. **Wave32 guards.**", "LOCAL_FIXES.md:11", "item 2 appears again (first at line 3)"},
		{"short SHA", "UPSTREAM", "commit: 3f2a9c1d4e5b6a7980b1c2d3e4f5a6b7c8d9e0f1", "commit: 3f2a9c1", "UPSTREAM:4", `commit is "3f2a9c1", not a full 40-hex commit SHA`},
		{"short merge base", "UPSTREAM", "fork_upstream_merge_base: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "fork_upstream_merge_base: 0a1b2c3d", "UPSTREAM:5", "fork_upstream_merge_base is"},
		{"pin mismatch", "UPSTREAM", "retargeted_to_mlx_pin: " + testPin, "retargeted_to_mlx_pin: 1111111111111111111111111111111111111111", "UPSTREAM:6", "is not the project's pin " + testPin},
		{"missing key", "UPSTREAM", "license: MIT\n", "", "UPSTREAM", "UPSTREAM has no license line"},
		{"named path missing", "LOCAL_FIXES.md", "`mlx/backend/gpu/copy.cpp`", "`mlx/backend/gpu/copy_gpu.cpp`", "LOCAL_FIXES.md:8", "item 1 names mlx/backend/gpu/copy_gpu.cpp, which is not in the overlay"},
		{"missing status", "LOCAL_FIXES.md", "   Status: retarget-only\n", "", "LOCAL_FIXES.md:7", "item 1 has no Status line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, "testdata/records/clean")
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, Records{Overlay: dir, Pin: testPin, RequireStatus: true}, tc.loc, tc.msg)
			if len(r.Findings) != 1 {
				t.Errorf("want only the planted defect, got:\n%s", findingsText(r))
			}
		})
	}
}

func TestRecordsMissingFiles(t *testing.T) {
	dir := copyTree(t, "testdata/records/clean")
	os.Remove(filepath.Join(dir, "UPSTREAM"))
	os.Remove(filepath.Join(dir, "LOCAL_FIXES.md"))
	r := mustFind(t, Records{Overlay: dir, Pin: testPin}, "UPSTREAM", "cannot read UPSTREAM")
	mustFind(t, Records{Overlay: dir, Pin: testPin}, "LOCAL_FIXES.md", "cannot read LOCAL_FIXES.md")
	if len(r.Findings) != 2 {
		t.Errorf("want one finding per missing file:\n%s", findingsText(r))
	}
}

func TestRecordsNestedLocalFixes(t *testing.T) {
	// LOCAL_FIXES.md in a sub-folder: item paths may be relative to it or
	// to the overlay root.
	dir := copyTree(t, "testdata/records/clean")
	data, err := os.ReadFile(filepath.Join(dir, "LOCAL_FIXES.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "mlx/backend/rocm/LOCAL_FIXES.md", string(data)+"\n4. **Local path.** `device/utils.hpp` relative to this file.\nStatus: retarget-only\n")
	os.Remove(filepath.Join(dir, "LOCAL_FIXES.md"))
	c := Records{Overlay: dir, Pin: testPin, LocalFixes: "mlx/backend/rocm/LOCAL_FIXES.md"}
	mustPass(t, c)
	plant(t, dir, "mlx/backend/rocm/LOCAL_FIXES.md", "`device/utils.hpp`", "`device/gone.hpp`")
	mustFind(t, c, "mlx/backend/rocm/LOCAL_FIXES.md:15", "item 4 names device/gone.hpp")
}
