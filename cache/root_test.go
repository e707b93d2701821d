package cache

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func TestEnsureRootTagsOnlyItsOwnDirectory(t *testing.T) {
	base := t.TempDir()
	missing := filepath.Join(base, "new", "cache")
	if err := EnsureRoot(missing); err != nil || !tagged(missing) {
		t.Fatalf("a missing root: %v, tagged %v", err, tagged(missing))
	}
	if err := EnsureRoot(missing); err != nil {
		t.Errorf("a tagged root again: %v", err)
	}
	empty := filepath.Join(base, "empty")
	os.Mkdir(empty, 0o755)
	if err := EnsureRoot(empty); err != nil || !tagged(empty) {
		t.Errorf("an empty root: %v, tagged %v", err, tagged(empty))
	}
	// A user's directory, and Cargo's target/ (it has a CACHEDIR.TAG of
	// its own): refused, and nothing is written into them.
	user := filepath.Join(base, "user")
	testutil.WriteFile(t, filepath.Join(user, "notes.txt"), "mine")
	cargo := filepath.Join(base, "target")
	testutil.WriteFile(t, filepath.Join(cargo, "CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by cargo.\n")
	testutil.WriteFile(t, filepath.Join(cargo, "debug", "app"), "bin")
	file := filepath.Join(base, "file")
	testutil.WriteFile(t, file, "x")
	for _, dir := range []string{user, cargo, file} {
		before := testutil.Snapshot(t, base)
		err := EnsureRoot(dir)
		var fe *ForeignRootError
		if !errors.As(err, &fe) || fe.Kind() != fail.Config || !strings.Contains(err.Error(), dir) {
			t.Errorf("EnsureRoot(%s) = %v, want a ForeignRootError naming it", dir, err)
		}
		if diff := testutil.SnapshotDiff(before, testutil.Snapshot(t, base)); diff != "" {
			t.Errorf("EnsureRoot(%s) changed files:\n%s", dir, diff)
		}
	}
}

func TestCleanLeavesWhatItDidNotMake(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	l := For(root, "rocm")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(l.Tree, "a.cpp"), filepath.Join(l.Build, "build.ninja"), l.Stamp, l.Log, filepath.Join(l.HIPPrefix, "x"),
		filepath.Join(l.Dir, "ccache", "x"), filepath.Join(l.Dir, ".tmp-stamp.json-12"), filepath.Join(root, "src", "git", "x"), filepath.Join(root, "sync", "a.lock")} {
		testutil.WriteFile(t, p, "ours")
	}
	mine := []string{filepath.Join(root, "notes.txt"), filepath.Join(l.Dir, "keep.me"), filepath.Join(root, "other", "f")}
	for _, p := range mine {
		testutil.WriteFile(t, p, "the user's")
	}
	res, err := Clean(root, all, CleanScope{Shared: true, Deps: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range mine {
		if b, err := os.ReadFile(p); err != nil || string(b) != "the user's" {
			t.Errorf("Clean removed or changed %s: %q, %v", p, b, err)
		}
	}
	left := slices.Clone(res.Left)
	slices.Sort(left)
	want := []string{filepath.Join(root, "notes.txt"), filepath.Join(root, "other"), filepath.Join(l.Dir, "keep.me")}
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("Left = %q, want %q", left, want)
	}
	var names []string
	for _, d := range []string{root, l.Dir} {
		e, _ := os.ReadDir(d)
		for _, x := range e {
			names = append(names, x.Name())
		}
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "CACHEDIR.TAG,keep.me,lock,notes.txt,other,rocm" {
		t.Errorf("after Clean: %s", got)
	}
}

func TestPrepareRefusesAnotherProjectsDirectory(t *testing.T) {
	base := t.TempDir()
	shared := filepath.Join(base, "shared-cache")
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	l := For(shared, "rocm")
	if err := Prepare(l, a); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(l, a); err != nil {
		t.Errorf("the owner again: %v", err)
	}
	err := Prepare(l, b)
	var oe *ownerError
	if !errors.As(err, &oe) || oe.Kind() != fail.Config || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), "MLXBUILD_CACHE") {
		t.Errorf("a second project: %v", err)
	}
	// Another backend of the shared root is free to claim.
	if err := Prepare(For(shared, "cpu"), b); err != nil {
		t.Errorf("b's cpu directory: %v", err)
	}
	// A cache inside the project follows the project when it moves.
	inner := For(filepath.Join(a, "target", "mlxbuild"), "rocm")
	if err := Prepare(inner, a); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(base, "a-moved")
	if err := os.Rename(a, moved); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(For(filepath.Join(moved, "target", "mlxbuild"), "rocm"), moved); err != nil {
		t.Errorf("the moved project's own cache: %v", err)
	}
}

func TestRemoveStaleTempsOnlyOurs(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	l := For(root, "rocm")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	stale := []string{
		filepath.Join(l.Dir, ".tmp-stamp.json-123"),
		filepath.Join(l.Dir, ".tmp-project-9"),
		filepath.Join(l.Dir, ".mlxbuild-tmp-manifest-77"),
		filepath.Join(l.Dir, ".mlxbuild-launch.tmp31"),
		filepath.Join(l.Dir, ".out-gen-1", "cargo.txt"),
		filepath.Join(l.Out, ".cargo.txt.tmp4242"),
		filepath.Join(l.Out, ".link.json.tmp1"),
		filepath.Join(l.Build, ".tmp-"+ConfigureRecordFile+"-5"),
		filepath.Join(l.Build, ".tmp-compile_commands.json-6"),
		filepath.Join(l.Build, ".tmp-mlxbuild-compdb.stamp-7"),
	}
	kept := []string{
		filepath.Join(l.Dir, ".tmp-user"),
		filepath.Join(l.Dir, "notes.tmp"),
		filepath.Join(l.Dir, "mlxbuild-launch"),
		filepath.Join(l.Tree, ".tmp-stamp.json-1"), // not one of its directories
		filepath.Join(l.Out, "cargo.txt"),
		filepath.Join(l.Out, ".mine.tmp"),
		filepath.Join(l.Build, ".tmp-CMakeCache.txt-1"),
	}
	for _, p := range append(slices.Clone(stale), kept...) {
		testutil.WriteFile(t, p, "x")
	}
	removed, err := RemoveStaleTemps(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale %s survived (%v)", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if len(removed) != len(stale) { // the generation directory counts once, as its file does
		t.Errorf("removed %q, want %d entries", removed, len(stale))
	}
}

// TestPurgeRemovesTheLinkedGeneration: after a pin change neither out/ nor
// the generation it points at may survive.
func TestPurgeRemovesTheLinkedGeneration(t *testing.T) {
	l := For(filepath.Join(t.TempDir(), "cache"), "rocm")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := atomicfile.ReplaceDir(l.Out, map[string][]byte{"cargo.txt": []byte("cargo:old\n")}); err != nil {
		t.Fatal(err)
	}
	if err := PurgeForPin(l, "aaa", "bbb"); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(l.Dir, ".out-*"))
	if _, err := os.Lstat(l.Out); !os.IsNotExist(err) || len(left) != 0 {
		t.Errorf("after the purge: out %v, generations %q", err, left)
	}
}
