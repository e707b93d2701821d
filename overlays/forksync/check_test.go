package forksync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// refFixture reproduces the shapes of the reference's ROCm overlay in
// miniature: MLX with a merge base b0 and a pin p1 after it; a fork that
// adds mlx/backend/rocm/ and hooks into mlx/ops.cpp and into a Metal file
// the overlay leaves out; an overlay at the pin whose backend has a local
// fix named backend-relative (`quantized/qmm.hip`), a local-only file, a
// dropped fork file named by its bare name, a core file that is exactly
// "pin + fork delta" and one with a residual of its own; LOCAL_FIXES.md
// with sections, out-of-order numbers and prose statuses.
type refFixture struct {
	root, cache, overlay string
	mlx, fork            *gitRepo
	b0, p1, c0           string
	opts                 checkOptions
}

const refFixes = `# Local changes relative to the fork

## Retarget onto the MLX pin

1. **Core file merges.** ` + "`mlx/io/safetensors.cpp`" + ` keeps upstream's guard and a local tweak; upstream's ` + "`mlx/export.cpp`" + ` is unaffected.

## Fixes to the fork's kernels

3. **Hadamard.** ` + "`mlx/backend/rocm/hadamard.hip`" + ` is new, measured with ` + "`tests/wht_op.rs`" + `. Applies to the fork.
4. **Scale type.** ` + "`quantized/qmm.hip`" + ` dispatches with uint8 scales; ` + "`sort.hip`" + ` is not carried. Applies to the fork; to be proposed there.

## Fixes to the fork's build

2. **Build.** The fork's build is unchanged here.

## Dropped from the vendored set

- ` + "`mlx/backend/metal/custom_kernel.cpp`" + ` from the fork is not carried.
`

func newRefFixture(t *testing.T) *refFixture {
	t.Helper()
	root := t.TempDir()
	f := &refFixture{root: root, cache: filepath.Join(root, "cache"), overlay: filepath.Join(root, "proj", "patches-rocm")}
	f.mlx = newRepo(t, filepath.Join(root, "mlx"))
	f.b0 = f.mlx.commit("mlx", map[string]string{
		"CMakeLists.txt":                      "project(mlx)\n",
		"mlx/ops.cpp":                         lines("ops", 30, nil),
		"mlx/io/safetensors.cpp":              lines("st", 30, nil),
		"mlx/backend/metal/custom_kernel.cpp": lines("mck", 5, nil),
	})
	f.fork = f.mlx.clone(filepath.Join(root, "fork"))
	f.fork.git("checkout", "--quiet", "-b", "rocm-support")
	f.c0 = f.fork.commit("rocm backend", map[string]string{
		rocm + "/CMakeLists.txt":              "add_library(rocm device.cpp)\n",
		rocm + "/device.cpp":                  lines("device", 10, nil),
		rocm + "/quantized/qmm.hip":           lines("qmm", 10, nil),
		rocm + "/sort.hip":                    lines("sort", 10, nil),
		"mlx/ops.cpp":                         lines("ops", 30, map[int]string{10: "ops fork hook"}),
		"mlx/backend/metal/custom_kernel.cpp": lines("mck", 5, map[int]string{2: "mck fork change"}),
	})
	f.p1 = f.mlx.commit("upstream moves on", map[string]string{
		"mlx/ops.cpp":            lines("ops", 30, map[int]string{25: "ops upstream change"}),
		"mlx/io/safetensors.cpp": lines("st", 30, map[int]string{3: "st upstream guard"}),
	})
	ov := f.overlay
	testutil.WriteFile(t, filepath.Join(ov, "CMakeLists.txt"), "project(mlx)\n")
	testutil.WriteFile(t, filepath.Join(ov, rocm, "CMakeLists.txt"), "add_library(rocm device.cpp)\n")
	testutil.WriteFile(t, filepath.Join(ov, rocm, "device.cpp"), lines("device", 10, nil))
	testutil.WriteFile(t, filepath.Join(ov, rocm, "quantized", "qmm.hip"), lines("qmm", 10, map[int]string{4: "qmm uint8 scales"}))
	testutil.WriteFile(t, filepath.Join(ov, rocm, "hadamard.hip"), "// local only\n")
	testutil.WriteFile(t, filepath.Join(ov, "mlx", "ops.cpp"), lines("ops", 30, map[int]string{10: "ops fork hook", 25: "ops upstream change"}))
	testutil.WriteFile(t, filepath.Join(ov, "mlx", "io", "safetensors.cpp"), lines("st", 30, map[int]string{3: "st upstream guard", 15: "st local tweak"}))
	testutil.WriteFile(t, filepath.Join(ov, "UPSTREAM"), "source: "+f.fork.dir+"\nbranch: rocm-support\ncommit: "+f.c0+
		"\nfork_upstream_merge_base: "+f.b0+"\nretargeted_to_mlx_pin: "+f.p1+"\nlicense: MIT\n")
	testutil.WriteFile(t, filepath.Join(ov, "LOCAL_FIXES.md"), refFixes)
	testutil.WriteFile(t, filepath.Join(ov, "README.md"), "- `mlx/backend/rocm/**`: the ROCm backend (4 files).\n"+
		"- 3 MLX core files (`CMakeLists.txt`, `mlx/{ops,io/safetensors}.cpp`).\n")
	f.opts = checkOptions{cacheRoot: f.cache, Overlay: ov, fork: configs.Fork{Git: f.fork.dir, Dirs: []string{rocm}}, upstream: f.mlx.dir, pin: f.p1}
	return f
}

func (f *refFixture) check(t *testing.T, write bool) *checkReport {
	t.Helper()
	o := f.opts
	o.write = write
	rep, err := CheckRecords(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// noted writes the residual and names its item, as a maintainer would.
func (f *refFixture) noted(t *testing.T) {
	t.Helper()
	rep := f.check(t, true)
	if rep.wrote == "" {
		t.Fatalf("-write wrote nothing: %+v", rep)
	}
	res := filepath.Join(f.overlay, "CORE_RESIDUAL.diff")
	data := readFile(t, res)
	if !strings.Contains(data, "# note mlx/io/safetensors.cpp: TODO") {
		t.Fatalf("the written residual has no TODO note for safetensors.cpp:\n%s", data)
	}
	testutil.WriteFile(t, res, strings.Replace(data, "# note mlx/io/safetensors.cpp: TODO: name the LOCAL_FIXES.md item this residual implements",
		"# note mlx/io/safetensors.cpp: item 1 (core file merges)", 1))
}

func findingsOf(rep *checkReport) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		b.WriteString(f.file + ": " + f.message + "\n")
	}
	return b.String()
}

func TestCheckRecordsReferenceShape(t *testing.T) {
	f := newRefFixture(t)
	// Before the residual is written, the new residual, and the record
	// missing, are the findings (the reference's records fail on the second).
	rep := f.check(t, false)
	if got := findingsOf(rep); len(rep.Findings) != 2 || !strings.Contains(got, "the core residual changed: mlx/io/safetensors.cpp (new residual)") ||
		!strings.Contains(got, "CORE_RESIDUAL.diff: missing") {
		t.Fatalf("findings before -write:\n%s", got)
	}
	f.noted(t)
	rep = f.check(t, false)
	if len(rep.Findings) != 0 {
		t.Fatalf("findings on the clean stand-in:\n%s", findingsOf(rep))
	}
	if strings.Join(rep.modified, ",") != rocm+"/quantized/qmm.hip" || strings.Join(rep.localOnly, ",") != rocm+"/hadamard.hip" ||
		strings.Join(rep.dropped, ",") != rocm+"/sort.hip" || rep.backendFiles != 4 || rep.core != 3 {
		t.Errorf("backend comparison: %d files, modified %v, local-only %v, dropped %v, %d core", rep.backendFiles, rep.modified, rep.localOnly, rep.dropped, rep.core)
	}
	if len(rep.residuals) != 1 || rep.residuals[0].path != "mlx/io/safetensors.cpp" || rep.residuals[0].plus != 1 || rep.residuals[0].minus != 1 {
		t.Errorf("residuals = %+v, want safetensors.cpp +1 -1 only (ops.cpp is pin + fork delta)", rep.residuals)
	}
	var out strings.Builder
	rep.Render(&out)
	if !strings.Contains(out.String(), "records agree with the overlay, the fork and the pin") {
		t.Errorf("clean report:\n%s", out.String())
	}

	for _, tc := range []struct {
		name  string
		plant func(t *testing.T)
		want  string
		finds int
	}{
		{"unnamed modified backend file", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, rocm, "device.cpp"), lines("device", 10, map[int]string{2: "device change"}))
		}, "mlx/backend/rocm/device.cpp differs from the fork", 1},
		{"full path of another file does not name it", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, rocm, "device.cpp"), lines("device", 10, map[int]string{2: "device change"}))
			testutil.WriteFile(t, filepath.Join(f.overlay, "LOCAL_FIXES.md"), refFixes+"\n5. **Device.** `mlx/device.cpp` changed upstream. Applies to the fork.\n")
		}, "mlx/backend/rocm/device.cpp differs from the fork", 1},
		{"unnamed local-only file", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, rocm, "extra.hip"), "// new\n")
			testutil.WriteFile(t, filepath.Join(f.overlay, "README.md"), strings.Replace(readFile(t, filepath.Join(f.overlay, "README.md")), "(4 files)", "(5 files)", 1))
		}, "mlx/backend/rocm/extra.hip is not in the fork (local-only)", 1},
		{"unnamed dropped file", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "LOCAL_FIXES.md"), strings.Replace(refFixes, "`sort.hip` is not carried", "nothing else", 1))
		}, "mlx/backend/rocm/sort.hip is in the fork but not in the overlay (dropped)", 1},
		{"uncarried fork hook not explained", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "LOCAL_FIXES.md"), strings.Split(refFixes, "## Dropped")[0])
		}, "the fork changes mlx/backend/metal/custom_kernel.cpp, which the overlay does not carry", 1},
		{"residual grew", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "mlx", "io", "safetensors.cpp"), lines("st", 30, map[int]string{3: "st upstream guard", 15: "st local tweak", 20: "st another"}))
		}, "the core residual changed: mlx/io/safetensors.cpp (residual differs)", 1},
		{"overlay drops an upstream change", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "mlx", "ops.cpp"), lines("ops", 30, map[int]string{10: "ops fork hook"}))
		}, "the core residual changed: mlx/ops.cpp (new residual)", 1},
		// The records gate, the same verdict as verify's records check.
		{"README removed", func(t *testing.T) {
			os.Remove(filepath.Join(f.overlay, "README.md"))
		}, "README.md: missing", 1},
		{"residual removed while a core file carries a local fix", func(t *testing.T) {
			os.Remove(filepath.Join(f.overlay, "CORE_RESIDUAL.diff"))
		}, "CORE_RESIDUAL.diff: missing", 2},
		{"UPSTREAM line without a colon", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "UPSTREAM"), readFile(t, filepath.Join(f.overlay, "UPSTREAM"))+"copied by hand\n")
		}, `"copied by hand" is not a ` + "`key: value`" + ` line`, 1},
		{"README count", func(t *testing.T) {
			testutil.WriteFile(t, filepath.Join(f.overlay, "README.md"), strings.Replace(readFile(t, filepath.Join(f.overlay, "README.md")), "(4 files)", "(106 files)", 1))
		}, "says mlx/backend/rocm/** has 106 files; the overlay has 4", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snap(t, f.overlay)
			defer restore(t, f.overlay, before)
			rep := f.check(t, false)
			if len(rep.Findings) != 0 {
				t.Fatalf("not clean before planting:\n%s", findingsOf(rep))
			}
			tc.plant(t)
			rep = f.check(t, false)
			got := findingsOf(rep)
			if len(rep.Findings) != tc.finds || !strings.Contains(got, tc.want) {
				t.Errorf("findings:\n%swant %d containing %q", got, tc.finds, tc.want)
			}
			for _, fd := range rep.Findings {
				if fd.fix == "" {
					t.Errorf("finding %q says nothing to do", fd.message)
				}
			}
		})
	}
}

// TestCheckRecordsGateAccepts: what the reference's records accept,
// checkRecords accepts: .DS_Store files at the root and inside mlx/ are
// neither core files nor findings, and UPSTREAM needs no license line. A
// project pin other than retargeted_to_mlx_pin fails, and a residual that
// differs shows its hunk.
func TestCheckRecordsGateAccepts(t *testing.T) {
	f := newRefFixture(t)
	f.noted(t)
	testutil.WriteFile(t, filepath.Join(f.overlay, ".DS_Store"), "\x00\x00\x00\x01Bud1")
	testutil.WriteFile(t, filepath.Join(f.overlay, "mlx", ".DS_Store"), "\x00\x00\x00\x01Bud1")
	testutil.WriteFile(t, filepath.Join(f.overlay, rocm, ".DS_Store"), "\x00\x00\x00\x01Bud1")
	up := filepath.Join(f.overlay, "UPSTREAM")
	testutil.WriteFile(t, up, strings.Replace(readFile(t, up), "license: MIT\n", "", 1))
	rep := f.check(t, false)
	if len(rep.Findings) != 0 || rep.core != 3 || rep.backendFiles != 4 {
		t.Fatalf("%d core, %d backend files, findings:\n%s", rep.core, rep.backendFiles, findingsOf(rep))
	}

	o := f.opts
	o.pin = f.b0
	if rep, err := CheckRecords(context.Background(), o); err != nil || !strings.Contains(findingsOf(rep), "retargeted_to_mlx_pin "+f.p1+" is not the project's pin "+f.b0) {
		t.Fatalf("a project pin other than UPSTREAM's passes: %v\n%s", err, findingsOf(rep))
	}

	testutil.WriteFile(t, filepath.Join(f.overlay, "mlx", "io", "safetensors.cpp"), lines("st", 30, map[int]string{15: "st local tweak"}))
	rep = f.check(t, false)
	var out strings.Builder
	rep.Render(&out)
	for _, s := range []string{"(residual differs)", "--- CORE_RESIDUAL.diff (recorded) mlx/io/safetensors.cpp", "+++ CORE_RESIDUAL.diff (now) mlx/io/safetensors.cpp", "+-st upstream guard"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("the report of a residual that dropped an upstream line lacks %q:\n%s", s, out.String())
		}
	}
}

// TestCheckRecordsForeignDiff accepts a recorded residual whose hunks were
// cut differently (one line of context, as another diff program may write
// them): what counts is that it turns pin + fork delta into the overlay.
func TestCheckRecordsForeignDiff(t *testing.T) {
	f := newRefFixture(t)
	f.noted(t)
	res := filepath.Join(f.overlay, "CORE_RESIDUAL.diff")
	data := readFile(t, res)
	head, _, _ := strings.Cut(data, "\n--- a/")
	recon := lines("st", 30, map[int]string{3: "st upstream guard"})
	own := readFile(t, filepath.Join(f.overlay, "mlx", "io", "safetensors.cpp"))
	m := &merger{dir: t.TempDir()}
	patch3, err := m.unifiedDiff(context.Background(), []byte(recon), []byte(own), "mlx/io/safetensors.cpp")
	if err != nil {
		t.Fatal(err)
	}
	// The same change with one line of context: a different text.
	patch1 := strings.Replace(strings.Replace(patch3, "@@ -12,7 +12,7 @@", "@@ -14,3 +14,3 @@", 1), " st line 12\n st line 13\n", "", 1)
	patch1 = strings.Replace(patch1, " st line 17\n st line 18\n", "", 1)
	if patch1 == patch3 || !strings.Contains(patch1, "@@ -14,3 +14,3 @@") {
		t.Fatalf("could not cut the patch to one line of context:\n%s", patch3)
	}
	testutil.WriteFile(t, res, head+"\n"+patch1)
	if rep := f.check(t, false); len(rep.Findings) != 0 {
		t.Errorf("a residual with other hunks but the same change is reported:\n%s", findingsOf(rep))
	}
	testutil.WriteFile(t, res, head+"\n"+strings.Replace(patch1, "+st local tweak", "+st other tweak", 1))
	if rep := f.check(t, false); !strings.Contains(findingsOf(rep), "mlx/io/safetensors.cpp (residual differs)") {
		t.Errorf("a residual that no longer gives the overlay's file passes:\n%s", findingsOf(rep))
	}
}

func TestRetarget(t *testing.T) {
	f := newRefFixture(t)
	p2 := f.mlx.commit("upstream again", map[string]string{
		"mlx/ops.cpp":            lines("ops", 30, map[int]string{25: "ops upstream change", 28: "ops second upstream change"}),
		"mlx/io/safetensors.cpp": lines("st", 30, map[int]string{3: "st upstream guard", 29: "st upstream tail"}),
	})
	o := retargetOptions{cacheRoot: f.cache, Overlay: f.overlay, upstream: f.mlx.dir, oldPin: f.p1, newPin: p2, backendDirs: []string{rocm}}
	backend := snap(t, filepath.Join(f.overlay, "mlx", "backend"))
	res, err := Retarget(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.merged, ",") != "mlx/io/safetensors.cpp,mlx/ops.cpp" || res.unchanged != 1 || !res.upstream {
		t.Errorf("result = %+v", res)
	}
	if got, want := readFile(t, filepath.Join(f.overlay, "mlx", "ops.cpp")), lines("ops", 30, map[int]string{10: "ops fork hook", 25: "ops upstream change", 28: "ops second upstream change"}); got != want {
		t.Errorf("ops.cpp after the retarget:\n%s\nwant the fork hook kept and upstream's change in:\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(f.overlay, "UPSTREAM")); !strings.Contains(got, "retargeted_to_mlx_pin: "+p2+"\n") || !strings.Contains(got, "commit: "+f.c0+"\n") {
		t.Errorf("UPSTREAM after the retarget:\n%s", got)
	}
	sameSnap(t, snap(t, filepath.Join(f.overlay, "mlx", "backend")), backend)
	// Again to the same pin: nothing to do.
	before := snap(t, f.overlay)
	o.oldPin = p2
	if res, err := Retarget(context.Background(), o); err != nil || len(res.merged) != 0 || res.upstream {
		t.Errorf("second retarget to the same pin: %+v, %v", res, err)
	}
	sameSnap(t, snap(t, f.overlay), before)
}

// conflictingPin commits an upstream change that merges cleanly into the
// overlay's ops.cpp, conflicts with its safetensors.cpp and removes
// CMakeLists.txt, which the overlay carries: a retarget to it conflicts.
func (f *refFixture) conflictingPin() string {
	return f.mlx.commit("upstream touches the local tweak", map[string]string{
		"mlx/ops.cpp":            lines("ops", 30, map[int]string{25: "ops upstream change", 28: "ops second upstream change"}),
		"mlx/io/safetensors.cpp": lines("st", 30, map[int]string{3: "st upstream guard", 15: "st upstream rewrite"}),
		"CMakeLists.txt":         removed,
	})
}

func TestRetargetConflictLeavesOverlay(t *testing.T) {
	f := newRefFixture(t)
	p2 := f.conflictingPin()
	before := snap(t, f.overlay)
	o := retargetOptions{cacheRoot: f.cache, Overlay: f.overlay, upstream: f.mlx.dir, oldPin: f.p1, newPin: p2, backendDirs: []string{rocm}}
	res, err := Retarget(context.Background(), o)
	var ce *RetargetConflictError
	if !errors.As(err, &ce) || fail.ExitCode(err) != 1 {
		t.Fatalf("err = %v, want a conflict", err)
	}
	sameSnap(t, snap(t, f.overlay), before)
	if len(res.conflicts) != 2 || res.conflicts[0].path != "CMakeLists.txt" || res.conflicts[1].path != "mlx/io/safetensors.cpp" {
		t.Fatalf("conflicts = %+v, want the removed CMakeLists.txt and safetensors.cpp", res.conflicts)
	}
	if !strings.Contains(res.conflicts[0].why, "moved or removed upstream") {
		t.Errorf("removed file's reason: %s", res.conflicts[0].why)
	}
	staged := readFile(t, res.conflicts[1].staged)
	if !strings.Contains(staged, "<<<<<<< overlay mlx/io/safetensors.cpp\n") || !strings.Contains(staged, "||||||| mlx "+short(f.p1)+" (old pin)\n") || !strings.Contains(staged, ">>>>>>> mlx "+short(p2)+" (new pin)\n") {
		t.Errorf("staged copy has no conflict markers:\n%s", staged)
	}
	if merged := readFile(t, filepath.Join(res.staged, "mlx", "ops.cpp")); !strings.Contains(merged, "ops second upstream change") {
		t.Errorf("the clean merge of ops.cpp is not in the staging copy")
	}
	for _, line := range []string{"CMakeLists.txt", "mlx/io/safetensors.cpp", "staged copy: " + res.staged} {
		if !strings.Contains(err.Error(), line) {
			t.Errorf("error lacks %q:\n%v", line, err)
		}
	}
}

// TestRetargetRerunAfterResolution: after a conflicted retarget, the user
// resolves each conflict in the overlay (the staged copy with both sides
// kept, the file upstream removed deleted) and runs it again: it goes
// through, keeps the resolution as written, merges the rest and sets
// retargeted_to_mlx_pin. A file left as it was still conflicts, and so does
// one that still holds a marker.
func TestRetargetRerunAfterResolution(t *testing.T) {
	f := newRefFixture(t)
	p2 := f.conflictingPin()
	o := retargetOptions{cacheRoot: f.cache, Overlay: f.overlay, upstream: f.mlx.dir, oldPin: f.p1, newPin: p2, backendDirs: []string{rocm}}
	res, err := Retarget(context.Background(), o)
	var ce *RetargetConflictError
	if !errors.As(err, &ce) || len(res.conflicts) != 2 {
		t.Fatalf("first retarget: %v", err)
	}
	st := filepath.Join(f.overlay, "mlx", "io", "safetensors.cpp")
	staged := readFile(t, res.conflicts[1].staged)
	// Still a marker in it: not resolved.
	testutil.WriteFile(t, st, staged)
	if _, err := Retarget(context.Background(), o); !errors.As(err, &ce) {
		t.Fatalf("a file with conflict markers was taken as resolved: %v", err)
	}
	resolution := keepBothSides(staged)
	testutil.WriteFile(t, st, resolution)
	if err := os.Remove(filepath.Join(f.overlay, "CMakeLists.txt")); err != nil {
		t.Fatal(err)
	}
	res, err = Retarget(context.Background(), o)
	if err != nil {
		t.Fatalf("re-run after the resolution: %v", err)
	}
	if got := readFile(t, st); got != resolution {
		t.Errorf("safetensors.cpp after the re-run:\n%s\nwant the resolution as written:\n%s", got, resolution)
	}
	if !strings.Contains(readFile(t, filepath.Join(f.overlay, "mlx", "ops.cpp")), "ops second upstream change") {
		t.Error("ops.cpp did not take upstream's change")
	}
	if got := readFile(t, filepath.Join(f.overlay, "UPSTREAM")); !strings.Contains(got, "retargeted_to_mlx_pin: "+p2+"\n") {
		t.Errorf("UPSTREAM after the re-run:\n%s", got)
	}
	var out strings.Builder
	res.Render(&out)
	if !strings.Contains(out.String(), "resolved mlx/io/safetensors.cpp") {
		t.Errorf("the summary does not name the resolved file:\n%s", out.String())
	}
	if _, err := os.Stat(retargetStateFile(f.overlay)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the retarget state is left behind: %v", err)
	}
}

// keepBothSides resolves every diff3 conflict of data by keeping the
// overlay's lines, then upstream's new ones: a resolution unlike either side.
func keepBothSides(data string) string {
	var out []string
	state := ""
	for _, l := range strings.Split(data, "\n") {
		switch {
		case strings.HasPrefix(l, "<<<<<<< "):
			state = "ours"
		case strings.HasPrefix(l, "||||||| "):
			state = "base"
		case l == "=======":
			state = "theirs"
		case strings.HasPrefix(l, ">>>>>>> "):
			state = ""
		case state != "base":
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestRetargetRefusesBadRevs(t *testing.T) {
	f := newRefFixture(t)
	marker := filepath.Join(t.TempDir(), "ran")
	// Only a full 40-hex id is a new pin: a branch, a tag or a short id
	// would move under source.pin and UPSTREAM.
	for _, rev := range []string{"--upload-pack=touch " + marker, "-x", "", "a b", "main", "HEAD", f.p1[:12], f.p1 + "0", "0000000000000000000000000000000000000001"} {
		o := retargetOptions{cacheRoot: f.cache, Overlay: f.overlay, upstream: f.mlx.dir, oldPin: f.p1, newPin: rev, backendDirs: []string{rocm}}
		_, err := Retarget(context.Background(), o)
		if err == nil {
			t.Errorf("retarget to %q: no error", rev)
			continue
		}
		if rev != "0000000000000000000000000000000000000001" && (fail.KindOf(err) != fail.Config) {
			t.Errorf("retarget to %q: %v, want a usage error (exit 2)", rev, err)
		}
		if gitrun.CheckRev(rev) == nil && !fullHex(rev) && !strings.Contains(err.Error(), "is not a full 40-hex commit id") {
			t.Errorf("retarget to %q: %v, want it refused as not a full 40-hex id", rev, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a revision reached git as an option")
	}
}

// restore puts a directory back to a snapshot (files only).
func restore(t *testing.T, dir string, s snapshot) {
	t.Helper()
	now := snap(t, dir)
	for k := range now {
		if _, ok := s[k]; !ok && !strings.HasSuffix(k, "/") {
			os.Remove(filepath.Join(dir, k))
		}
	}
	for k, v := range s {
		if strings.HasSuffix(k, "/") {
			continue
		}
		_, content, _ := strings.Cut(v, " ")
		testutil.WriteFile(t, filepath.Join(dir, k), content)
	}
}
