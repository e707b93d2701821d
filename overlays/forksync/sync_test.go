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
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// syncFixture is an MLX repository, a fork of it with a ROCm backend, and an
// overlay vendored from the fork with local fixes, a local-only file and a
// retargeted core file.
type syncFixture struct {
	root, cache string
	mlx, fork   *gitRepo
	b0          string // MLX commit the fork branched from
	c0          string // fork commit the overlay came from
	overlay     string
	project     string // mlxbuild.yaml
	upText      string // UPSTREAM as written
	before      snapshot
	forkOpts    syncOptions
}

const (
	rocm  = "mlx/backend/rocm"
	avail = "mlx/backend/gpu/available.cpp"
)

func newSyncFixture(t *testing.T) *syncFixture {
	t.Helper()
	root := t.TempDir()
	f := &syncFixture{root: root, cache: filepath.Join(root, "cache"), overlay: filepath.Join(root, "proj", "patches-rocm")}
	f.mlx = newRepo(t, filepath.Join(root, "mlx"))
	f.b0 = f.mlx.commit("mlx", map[string]string{
		"mlx/ops.h":             lines("ops", 20, nil),
		avail:                   lines("avail", 30, nil),
		"mlx/backend/cpu/x.cpp": lines("x", 10, nil),
	})
	f.fork = f.mlx.clone(filepath.Join(root, "fork"))
	f.fork.git("checkout", "--quiet", "-b", "rocm-support")
	f.c0 = f.fork.commit("rocm backend", map[string]string{
		rocm + "/a.hip":          lines("a", 40, nil),
		rocm + "/b.h":            lines("b", 20, nil),
		rocm + "/d.h":            lines("d", 5, nil),
		rocm + "/CMakeLists.txt": "add_library(rocm a.hip)\n",
		avail:                    lines("avail", 30, map[int]string{5: "avail fork change 1"}),
	})
	// The fork's generator script is executable; the overlay keeps the bit.
	testutil.WriteFile(t, filepath.Join(f.fork.dir, rocm, "gen.sh"), "#!/bin/sh\necho gen\n")
	os.Chmod(filepath.Join(f.fork.dir, rocm, "gen.sh"), 0o755)
	f.c0 = f.fork.commit("generator", nil)

	ov := f.overlay
	testutil.WriteFile(t, filepath.Join(ov, rocm, "a.hip"), lines("a", 40, map[int]string{10: "a local fix"}))
	testutil.WriteFile(t, filepath.Join(ov, rocm, "b.h"), lines("b", 20, nil))
	testutil.WriteFile(t, filepath.Join(ov, rocm, "d.h"), lines("d", 5, nil))
	testutil.WriteFile(t, filepath.Join(ov, rocm, "CMakeLists.txt"), "add_library(rocm a.hip)\n")
	testutil.WriteFile(t, filepath.Join(ov, rocm, "gen.sh"), "#!/bin/sh\necho gen\n")
	os.Chmod(filepath.Join(ov, rocm, "gen.sh"), 0o755)
	testutil.WriteFile(t, filepath.Join(ov, rocm, "local.h"), "// local only\n")
	testutil.WriteFile(t, filepath.Join(ov, rocm, "extra", "only-here.h"), "// local only, in a directory of its own\n")
	testutil.WriteFile(t, filepath.Join(ov, avail), lines("avail", 30, map[int]string{5: "avail fork change 1", 25: "avail retargeted"}))
	f.upText = "# where the overlay comes from\nsource: " + f.fork.dir + "\nbranch: rocm-support\ncommit: " + f.c0 +
		"\nfork_upstream_merge_base: " + f.b0 + "\nretargeted_to_mlx_pin: " + f.b0 + "\nlicense: MIT\n"
	testutil.WriteFile(t, filepath.Join(ov, "UPSTREAM"), f.upText)
	testutil.WriteFile(t, filepath.Join(ov, "LOCAL_FIXES.md"), "# Local fixes\n\n1. **Local fix.** `mlx/backend/rocm/a.hip`: line 10.\n   Status: to be proposed\n")
	testutil.WriteFile(t, filepath.Join(ov, "README.md"), "the overlay\n")

	f.project = filepath.Join(root, "proj", "mlxbuild.yaml")
	testutil.WriteFile(t, f.project, "source:\n  git: ../mlx\n  pin: "+f.b0+"\ncache: ../cache\nbackends:\n  rocm:\n    overlay: patches-rocm\n"+
		"    fork:\n      git: ../fork\n      branch: rocm-support\n      dirs: [mlx/backend/rocm]\n      core: [mlx/backend/gpu/available.cpp]\n")
	f.forkOpts = syncOptions{CacheRoot: f.cache, Overlay: ov, Fork: configs.Fork{Git: f.fork.dir, Dirs: []string{rocm}, Core: []string{avail}}, Upstream: f.mlx.dir}
	f.before = snap(t, ov)
	return f
}

// forkC1 commits non-conflicting fork changes: a changed header, a change
// far from the local fix, a new file, a removed one, and a core change.
func (f *syncFixture) forkC1() string {
	return f.fork.commit("fork moves on", map[string]string{
		rocm + "/b.h":   lines("b", 20, map[int]string{3: "b fork change"}),
		rocm + "/a.hip": lines("a", 40, map[int]string{30: "a fork change"}),
		rocm + "/c.hip": "// new kernel\n",
		rocm + "/d.h":   removed,
		avail:           lines("avail", 30, map[int]string{5: "avail fork change 1", 15: "avail fork change 2"}),
	})
}

func TestSyncToTheOverlaysOwnCommitIsANoop(t *testing.T) {
	f := newSyncFixture(t)
	cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	name, o, err := SyncOptionsFor(cfg, "", f.c0)
	if err != nil {
		t.Fatal(err)
	}
	if name != "rocm" || o.Fork.Git != f.fork.dir || o.Upstream != f.mlx.dir || o.Overlay != f.overlay {
		t.Fatalf("SyncOptionsFor resolved %q %+v", name, o)
	}
	// A GIT_DIR from a hook must not redirect mlxbuild's git.
	t.Setenv("GIT_DIR", filepath.Join(f.root, "nowhere"))
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.changed() {
		t.Errorf("a sync to the overlay's own commit changed something: %+v", res)
	}
	if res.localOnly != 2 {
		t.Errorf("LocalOnly = %d, want 2 (local.h, extra/only-here.h)", res.localOnly)
	}
	sameSnap(t, snap(t, f.overlay), f.before)
	if _, err := os.Stat(stageDir(f.overlay)); err == nil {
		t.Errorf("a no-op sync left %s", stageDir(f.overlay))
	}
	// By branch name too: it resolves to the same commit.
	if res, err := Sync(context.Background(), withCommit(o, "rocm-support")); err != nil || res.changed() || res.to != f.c0 {
		t.Fatalf("sync to the branch: %+v, %v", res, err)
	}
	sameSnap(t, snap(t, f.overlay), f.before)
}

func withCommit(o syncOptions, c string) syncOptions { o.Commit = c; return o }

func TestSyncMergesANewerForkCommitAndKeepsLocalFixes(t *testing.T) {
	f := newSyncFixture(t)
	c1 := f.forkC1()
	res, err := Sync(context.Background(), withCommit(f.forkOpts, c1))
	if err != nil {
		t.Fatal(err)
	}
	ov := f.overlay
	want := map[string]string{
		rocm + "/a.hip":             lines("a", 40, map[int]string{10: "a local fix", 30: "a fork change"}),
		rocm + "/b.h":               lines("b", 20, map[int]string{3: "b fork change"}),
		rocm + "/c.hip":             "// new kernel\n",
		rocm + "/local.h":           "// local only\n",
		rocm + "/extra/only-here.h": "// local only, in a directory of its own\n",
		avail:                       lines("avail", 30, map[int]string{5: "avail fork change 1", 15: "avail fork change 2", 25: "avail retargeted"}),
		"UPSTREAM":                  strings.Replace(f.upText, "commit: "+f.c0, "commit: "+c1, 1),
		"README.md":                 "the overlay\n",
		rocm + "/CMakeLists.txt":    "add_library(rocm a.hip)\n",
	}
	for p, w := range want {
		if got := readFile(t, filepath.Join(ov, p)); got != w {
			t.Errorf("%s after the sync:\n%s\nwant:\n%s", p, got, w)
		}
	}
	if _, err := os.Stat(filepath.Join(ov, rocm, "d.h")); err == nil {
		t.Error("d.h, removed by the fork and unchanged here, is still in the overlay")
	}
	if fi, err := os.Stat(filepath.Join(ov, rocm, "gen.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("gen.sh lost its executable bit: %v %v", fi.Mode(), err)
	}
	if got := strings.Join(res.merged, ","); got != avail+","+rocm+"/a.hip" {
		t.Errorf("Merged = %q", got)
	}
	if got := strings.Join(res.added, ","); got != rocm+"/c.hip" {
		t.Errorf("Added = %q", got)
	}
	if got := strings.Join(res.updated, ","); got != rocm+"/b.h" {
		t.Errorf("Updated = %q", got)
	}
	if got := strings.Join(res.removed, ","); got != rocm+"/d.h" {
		t.Errorf("Removed = %q", got)
	}
	for _, d := range []string{stageDir(ov), oldDir(ov)} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is left over", d)
		}
	}
	// Syncing again to the same commit is now a no-op.
	after := snap(t, ov)
	if res, err := Sync(context.Background(), withCommit(f.forkOpts, c1)); err != nil || res.changed() {
		t.Fatalf("second sync: %+v %v", res, err)
	}
	sameSnap(t, snap(t, ov), after)
}

func TestSyncConflictChangesNothingAndNamesTheFile(t *testing.T) {
	f := newSyncFixture(t)
	f.forkC1()
	c2 := f.fork.commit("fork fixes line 10 its own way", map[string]string{
		rocm + "/a.hip": lines("a", 40, map[int]string{10: "a fork fix", 30: "a fork change"}),
	})
	res, err := Sync(context.Background(), withCommit(f.forkOpts, c2))
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ConflictError, got %v", err)
	}
	if code := fail.ExitCode(err); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	sameSnap(t, snap(t, f.overlay), f.before)
	if len(res.conflicts) != 1 || res.conflicts[0].path != rocm+"/a.hip" {
		t.Fatalf("conflicts: %+v", res.conflicts)
	}
	staged := res.conflicts[0].staged
	if !strings.Contains(err.Error(), rocm+"/a.hip") || !strings.Contains(err.Error(), staged) {
		t.Errorf("the error does not name the file and its staged copy:\n%v", err)
	}
	got := readFile(t, staged)
	for _, w := range []string{"<<<<<<< overlay:" + rocm + "/a.hip", "a local fix", "a fork fix", ">>>>>>> fork@" + short(c2), "a fork change"} {
		if !strings.Contains(got, w) {
			t.Errorf("the staged copy lacks %q:\n%s", w, got)
		}
	}
	// The staged copy of a file that merged cleanly is the merge.
	if got := readFile(t, filepath.Join(res.staged, rocm, "b.h")); got != lines("b", 20, map[int]string{3: "b fork change"}) {
		t.Errorf("staged b.h:\n%s", got)
	}
}

// forkMergesUpstream moves MLX on (b1), merges it into the fork and
// commits a fork change after the merge (c3).
func (f *syncFixture) forkMergesUpstream() (b1, c3 string) {
	b1 = f.mlx.commit("mlx moves on", map[string]string{
		avail:       lines("avail", 30, map[int]string{28: "avail upstream change"}),
		"mlx/ops.h": lines("ops", 20, map[int]string{2: "ops upstream change"}),
	})
	f.fork.git("pull", "--quiet", "--no-rebase", "--no-edit", "origin", "main")
	c3 = f.fork.commit("fork change after the merge", map[string]string{
		avail: lines("avail", 30, map[int]string{5: "avail fork change 1", 12: "avail fork change 3", 28: "avail upstream change"}),
	})
	return b1, c3
}

// When the fork merged newer MLX and the pin was retargeted to it first, a
// core file takes the fork's own change on top of the retargeted file (the
// upstream change came with the retarget, not with the sync), and UPSTREAM
// records the new merge base.
func TestSyncAcrossAMergeBaseMoveCarriesOnlyTheForksChange(t *testing.T) {
	f := newSyncFixture(t)
	b1, c3 := f.forkMergesUpstream()
	cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	_, ro, err := RetargetOptionsFor(cfg, "rocm", b1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Retarget(context.Background(), ro); err != nil {
		t.Fatal(err)
	}
	o := withCommit(f.forkOpts, c3)
	o.Pin = b1 // source.pin follows the retarget
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.newBase != b1 || res.base != f.b0 {
		t.Errorf("merge base %s -> %s, want %s -> %s", res.base, res.newBase, f.b0, b1)
	}
	up := readFile(t, filepath.Join(f.overlay, "UPSTREAM"))
	if !strings.Contains(up, "fork_upstream_merge_base: "+b1+"\n") || !strings.Contains(up, "commit: "+c3+"\n") || !strings.Contains(up, "retargeted_to_mlx_pin: "+b1+"\n") {
		t.Errorf("UPSTREAM:\n%s", up)
	}
	want := lines("avail", 30, map[int]string{5: "avail fork change 1", 12: "avail fork change 3", 25: "avail retargeted", 28: "avail upstream change"})
	if got := readFile(t, filepath.Join(f.overlay, avail)); got != want {
		t.Errorf("core file:\n%s\nwant:\n%s", got, want)
	}
}

func TestForkBackendChoice(t *testing.T) {
	f := newSyncFixture(t)
	cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ForkBackend(cfg, "cuda"); err == nil || !strings.Contains(err.Error(), "backends.cuda") {
		t.Errorf("a backend without a fork: %v", err)
	}
	cfg.Project.Backends["cuda"] = &configs.ProjectBackend{Overlay: "patches-rocm", Fork: &configs.Fork{Git: "x", Dirs: []string{"y"}}}
	if _, _, err := ForkBackend(cfg, ""); err == nil || !strings.Contains(err.Error(), "-backend=cuda") {
		t.Errorf("two fork backends without -backend: %v", err)
	}
	if n, fk, err := ForkBackend(cfg, "cuda"); err != nil || n != "cuda" || fk.Git != filepath.Join(filepath.Dir(f.project), "x") {
		t.Errorf("ForkBackend(cuda) = %s %+v %v", n, fk, err)
	}
}

// TestSyncIntoRecordsOnlyOverlay is the reference's first vendoring: an
// overlay that holds only its records, UPSTREAM's commit at the fork's merge
// base, synced to the fork. Like the reference's sync it brings the whole
// overlay: every backend file and every MLX file the fork changes (the
// top-level CMakeLists.txt, a core file), byte for byte as the fork has them
// (the pin is the merge base, so pin + fork delta is the fork's file), but
// not the hook LOCAL_FIXES.md lists as dropped.
func TestSyncIntoRecordsOnlyOverlay(t *testing.T) {
	root := t.TempDir()
	mlx := newRepo(t, filepath.Join(root, "mlx"))
	b0 := mlx.commit("mlx", map[string]string{
		"CMakeLists.txt":                      "project(mlx)\n",
		avail:                                 lines("avail", 30, nil),
		"mlx/backend/metal/custom_kernel.cpp": lines("mck", 5, nil),
		"mlx/ops.cpp":                         lines("ops", 10, nil),
	})
	fork := mlx.clone(filepath.Join(root, "fork"))
	fork.git("checkout", "--quiet", "-b", "rocm-support")
	c0 := fork.commit("rocm backend", map[string]string{
		rocm + "/CMakeLists.txt":              "add_library(rocm a.hip)\n",
		rocm + "/a.hip":                       lines("a", 40, nil),
		rocm + "/device/utils.hpp":            lines("u", 12, nil),
		"CMakeLists.txt":                      "project(mlx)\noption(MLX_BUILD_ROCM \"\" OFF)\n",
		avail:                                 lines("avail", 30, map[int]string{5: "avail rocm hook"}),
		"mlx/backend/metal/custom_kernel.cpp": lines("mck", 5, map[int]string{2: "mck fork change"}),
	})
	ov := filepath.Join(root, "proj", "patches-rocm")
	upText := "source: " + fork.dir + "\nbranch: rocm-support\ncommit: " + b0 + "\nfork_upstream_merge_base: " + b0 + "\nretargeted_to_mlx_pin: " + b0 + "\n"
	testutil.WriteFile(t, filepath.Join(ov, "UPSTREAM"), upText)
	testutil.WriteFile(t, filepath.Join(ov, "README.md"), "- `mlx/backend/rocm/**`: the ROCm backend (3 files).\n- 2 MLX core files (`CMakeLists.txt`, `mlx/backend/gpu/available.cpp`).\n")
	testutil.WriteFile(t, filepath.Join(ov, "LOCAL_FIXES.md"), "# Local changes\n\n## Retarget onto the MLX pin\n\n1. **Nothing yet.** Retarget-only.\n\n"+
		"## Dropped from the vendored set\n\n- `mlx/backend/metal/custom_kernel.cpp` from the fork is not carried.\n")

	o := syncOptions{CacheRoot: filepath.Join(root, "cache"), Overlay: ov, Fork: configs.Fork{Git: fork.dir, Dirs: []string{rocm}}, Upstream: mlx.dir, Commit: c0}
	res, err := Sync(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"CMakeLists.txt", avail, rocm + "/CMakeLists.txt", rocm + "/a.hip", rocm + "/device/utils.hpp"}
	if got := strings.Join(res.added, ","); got != strings.Join(want, ",") {
		t.Errorf("added %s, want %s (notes %v)", got, strings.Join(want, ","), res.notes)
	}
	for _, p := range want {
		if got, fork := readFile(t, filepath.Join(ov, filepath.FromSlash(p))), fork.git("show", c0+":"+p); got != fork+"\n" && got != fork {
			t.Errorf("%s is not the fork's file byte for byte:\n%s", p, got)
		}
	}
	if _, err := os.Stat(filepath.Join(ov, "mlx", "backend", "metal", "custom_kernel.cpp")); err == nil {
		t.Error("the hook LOCAL_FIXES.md lists as dropped was brought")
	}
	if !strings.Contains(readFile(t, filepath.Join(ov, "UPSTREAM")), "commit: "+c0+"\n") {
		t.Errorf("UPSTREAM not moved to %s:\n%s", c0, readFile(t, filepath.Join(ov, "UPSTREAM")))
	}
	// A second sync to the same commit changes nothing.
	before := snap(t, ov)
	if res, err := Sync(context.Background(), o); err != nil || res.changed() {
		t.Fatalf("second sync: %+v %v", res, err)
	}
	sameSnap(t, snap(t, ov), before)
}
