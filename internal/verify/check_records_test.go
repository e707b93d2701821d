package verify

import (
	"os"
	"path/filepath"
	"strings"
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
		{"short SHA", "UPSTREAM", "commit: 3f2a9c1d4e5b6a7980b1c2d3e4f5a6b7c8d9e0f1", "commit: 3f2a9c1", "UPSTREAM:4", `commit is "3f2a9c1", not a full 40-character lowercase commit SHA`},
		{"uppercase SHA", "UPSTREAM", "commit: 3f2a9c1d4e5b6a7980b1c2d3e4f5a6b7c8d9e0f1", "commit: 3F2A9C1D4E5B6A7980B1C2D3E4F5A6B7C8D9E0F1", "UPSTREAM:4", "not a full 40-character lowercase commit SHA"},
		{"short merge base", "UPSTREAM", "fork_upstream_merge_base: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", "fork_upstream_merge_base: 0a1b2c3d", "UPSTREAM:5", "fork_upstream_merge_base is"},
		{"pin mismatch", "UPSTREAM", "retargeted_to_mlx_pin: " + testPin, "retargeted_to_mlx_pin: 1111111111111111111111111111111111111111", "UPSTREAM:6", "is not the project's pin " + testPin},
		{"missing key", "UPSTREAM", "branch: rocm-support\n", "", "UPSTREAM", "UPSTREAM has no branch line"},
		{"missing status", "LOCAL_FIXES.md", "   Status: retarget-only\n", "", "LOCAL_FIXES.md:7", "item 1 says nowhere whether it applies to the fork or is retarget-only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, "testdata/records/clean")
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, Records{Overlay: dir, Pin: testPin, RequireStatus: true}, tc.loc, tc.msg)
			// A commit changed in UPSTREAM also makes the residual stale, as
			// the reference says too; nothing else may be found.
			n := 0
			for _, f := range r.Findings {
				if !strings.Contains(f.Message, "was generated for") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("want only the planted defect, got:\n%s", findingsText(r))
			}
		})
	}
}

func TestRecordsMissingFiles(t *testing.T) {
	dir := copyTree(t, "testdata/records/clean")
	os.Remove(filepath.Join(dir, "UPSTREAM"))
	os.Remove(filepath.Join(dir, "LOCAL_FIXES.md"))
	r := mustFind(t, Records{Overlay: dir, Pin: testPin}, "UPSTREAM", "UPSTREAM: missing")
	mustFind(t, Records{Overlay: dir, Pin: testPin}, "LOCAL_FIXES.md", "LOCAL_FIXES.md: missing")
	n := 0
	for _, f := range r.Findings {
		if strings.HasSuffix(f.File, "UPSTREAM") || strings.HasSuffix(f.File, "LOCAL_FIXES.md") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want one finding per missing file (the residual's header then disagrees too):\n%s", findingsText(r))
	}
}

// TestRecordsReferenceShape runs the check on a stand-in with the shapes of
// the reference's real records: items numbered out of order under section
// headings, backend-relative paths, upstream and engine files that are not
// in the overlay, no Status lines (prose and sections say it), README counts
// and a CORE_RESIDUAL.diff. Clean, it passes with require_status; each
// planted defect is the only finding.
func TestRecordsReferenceShape(t *testing.T) {
	const fix = "testdata/records/reference"
	mustPass(t, Records{Overlay: fix, Pin: testPin, RequireStatus: true})
	for _, tc := range []struct {
		name, file, old, new, loc, msg string
	}{
		{"backend count", "README.md", "(5 files)", "(6 files)", "README.md:3", "says mlx/backend/rocm/** has 6 files; the overlay has 5"},
		{"core count", "README.md", "3 MLX core files", "4 MLX core files", "README.md:4", "says 4 MLX core files; the overlay has 3"},
		{"core file not listed", "README.md", "`mlx/io/safetensors.cpp`", "`mlx/io/other.cpp`", "README.md:4", "core file mlx/io/safetensors.cpp is not listed"},
		{"stale residual pin", "CORE_RESIDUAL.diff", "# pin: 81ba1c6a", "# pin: 91ba1c6a", "CORE_RESIDUAL.diff:3", "was generated for pin 91ba1c6a"},
		{"stale residual fork", "CORE_RESIDUAL.diff", "# fork: 3f2a9c1d", "# fork: 4f2a9c1d", "CORE_RESIDUAL.diff:4", "was generated for fork 4f2a9c1d"},
		{"core file edited", "mlx/backend/common/compiled.cpp", "return 1;", "return 3;", "CORE_RESIDUAL.diff:7", "mlx/backend/common/compiled.cpp changed since the residual was generated"},
		{"residual without note", "CORE_RESIDUAL.diff", "# note mlx/io/safetensors.cpp: item 1 (core file merges): the empty-tensor guard\n", "", "CORE_RESIDUAL.diff", "mlx/io/safetensors.cpp has a residual but no note"},
		{"note left TODO", "CORE_RESIDUAL.diff", ": item 1 (core file merges): the empty-tensor guard", ": TODO: name the item", "CORE_RESIDUAL.diff:9", "has a residual but no note"},
		{"note names no item", "CORE_RESIDUAL.diff", ": item 1 (core", ": item 9 (core", "CORE_RESIDUAL.diff:9", "points at item 9, which LOCAL_FIXES.md does not have"},
		{"residual for a backend file", "CORE_RESIDUAL.diff", "b/mlx/io/safetensors.cpp", "b/mlx/backend/rocm/device.cpp", "CORE_RESIDUAL.diff:11", "residual for mlx/backend/rocm/device.cpp, which is not a core file"},
		{"prose says nothing", "LOCAL_FIXES.md", "## Fixes to the fork's build", "## Other", "LOCAL_FIXES.md:20", "item 4 says nowhere whether"},
		{"prose says both", "LOCAL_FIXES.md", "sets the flag first;", "sets the flag first (retarget-only, applies to the fork);", "LOCAL_FIXES.md:20", "item 4 says both"},
		{"number used twice", "LOCAL_FIXES.md", "4. **Device init order.**", "5. **Device init order.**", "LOCAL_FIXES.md:20", "item 5 appears again (first at line 15)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, fix)
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, Records{Overlay: dir, Pin: testPin, RequireStatus: true}, tc.loc, tc.msg)
			if n := len(r.Findings); n != 1 && tc.name != "residual for a backend file" && tc.name != "number used twice" {
				t.Errorf("want only the planted defect, got:\n%s", findingsText(r))
			}
		})
	}
}

func TestRecordsNestedLocalFixes(t *testing.T) {
	// LOCAL_FIXES.md in a sub-folder (local_fixes:) is the one read: its
	// defects are reported at its own path and lines.
	dir := copyTree(t, "testdata/records/clean")
	data, err := os.ReadFile(filepath.Join(dir, "LOCAL_FIXES.md"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "mlx/backend/rocm/LOCAL_FIXES.md", string(data)+"\n4. **Local path.** `device/utils.hpp` relative to this file.\nStatus: retarget-only\n")
	os.Remove(filepath.Join(dir, "LOCAL_FIXES.md"))
	c := Records{Overlay: dir, Pin: testPin, LocalFixes: "mlx/backend/rocm/LOCAL_FIXES.md"}
	mustPass(t, c)
	plant(t, dir, "mlx/backend/rocm/LOCAL_FIXES.md", "4. **Local path.**", "6. **Local path.**")
	mustFind(t, c, "mlx/backend/rocm/LOCAL_FIXES.md:15", "gap in numbering: no items 4 to 5")
}

// TestRecordsGateAsReference: the cases of the reference's records tool,
// with the verdict it gives. verify's records check and overlay:checkRecords
// share records.Gate, so overlays/forksync's TestCheckRecordsReferenceShape
// holds the same cases against checkRecords.
func TestRecordsGateAsReference(t *testing.T) {
	const fix = "testdata/records/reference"
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		loc   string // "" when the reference accepts it
		msg   string
	}{
		{"README removed", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "README.md")) }, "README.md", "README.md: missing"},
		{"residual missing while core files carry a fix", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "CORE_RESIDUAL.diff")) },
			"CORE_RESIDUAL.diff", "CORE_RESIDUAL.diff: missing"},
		{"UPSTREAM line without a colon", func(t *testing.T, dir string) { plant(t, dir, "UPSTREAM", "license: MIT\n", "license MIT\n") },
			"UPSTREAM:7", `"license MIT" is not a ` + "`key: value`" + ` line`},
		{"README without the backend count", func(t *testing.T, dir string) {
			plant(t, dir, "README.md", "- `mlx/backend/rocm/**`: the ROCm backend (5 files).", "- The ROCm backend.")
		}, "README.md", "has no statement of mlx/backend/rocm's file count"},
		{"no license line", func(t *testing.T, dir string) { plant(t, dir, "UPSTREAM", "license: MIT\n", "") }, "", ""},
		{".DS_Store at the root and in mlx/", func(t *testing.T, dir string) {
			writeFile(t, dir, ".DS_Store", "\x00\x00\x00\x01Bud1")
			writeFile(t, dir, "mlx/.DS_Store", "\x00\x00\x00\x01Bud1")
			writeFile(t, dir, "mlx/backend/rocm/.DS_Store", "\x00\x00\x00\x01Bud1")
		}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, fix)
			tc.plant(t, dir)
			c := Records{Overlay: dir, Pin: testPin, RequireStatus: true}
			if tc.loc == "" {
				mustPass(t, c)
				return
			}
			mustFind(t, c, tc.loc, tc.msg)
		})
	}
	dir := copyTree(t, fix)
	mustFind(t, Records{Overlay: dir, Pin: "1111111111111111111111111111111111111111"}, "UPSTREAM:6", "is not the project's pin")
}
