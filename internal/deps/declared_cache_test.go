package deps

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestDeclaredCached records a tree's declarations under the identity of a
// stand-in manifest, reuses them while that identity stays (a tree edit that
// no new manifest came with is, by contract, not looked at), and scans again
// when the manifest is rewritten, as Materialize rewrites it with every tree
// change: the new declaration is seen.
func TestDeclaredCached(t *testing.T) {
	dir := t.TempDir()
	tree, manifest, file := filepath.Join(dir, "tree"), filepath.Join(dir, "tree.manifest"), filepath.Join(dir, "tree.declared")
	testutil.WriteFile(t, filepath.Join(tree, "CMakeLists.txt"), "FetchContent_Declare(json URL x)\n")
	testutil.WriteFile(t, manifest, "m1\n")
	declared := func(key string) map[string]bool {
		t.Helper()
		got, err := DeclaredCached(tree, file, key)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := declared(memo.Of(manifest).Key()); !maps.Equal(got, map[string]bool{"json": true}) {
		t.Fatalf("first scan: %v", got)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("nothing recorded: %v", err)
	}

	// Same key: the record answers, not the tree.
	testutil.WriteFile(t, filepath.Join(tree, "cmake", "more.cmake"), "FetchContent_Declare(fmt URL x)\n")
	if got := declared(memo.Of(manifest).Key()); !maps.Equal(got, map[string]bool{"json": true}) {
		t.Fatalf("with the same key the record was not used: %v", got)
	}

	// A rewritten manifest (rename over it: a new inode) is a new key.
	testutil.WriteFile(t, manifest+".tmp", "m2\n")
	if err := os.Rename(manifest+".tmp", manifest); err != nil {
		t.Fatal(err)
	}
	if got := declared(memo.Of(manifest).Key()); !maps.Equal(got, map[string]bool{"json": true, "fmt": true}) {
		t.Fatalf("after the manifest changed: %v, want json and fmt", got)
	}
	// An edit in place that keeps size and mtime still changes ctime.
	st, _ := os.Stat(manifest)
	testutil.WriteFile(t, filepath.Join(tree, "cmake", "more.cmake"), "# none\n")
	testutil.WriteFile(t, manifest, "m3\n")
	if err := os.Chtimes(manifest, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := declared(memo.Of(manifest).Key()); !maps.Equal(got, map[string]bool{"json": true}) {
		t.Fatalf("after an in-place manifest edit: %v, want json", got)
	}

	// Another tree with the same key is not answered from this record.
	other := filepath.Join(dir, "other")
	testutil.WriteFile(t, filepath.Join(other, "CMakeLists.txt"), "FetchContent_Declare(gguflib URL x)\n")
	got, err := DeclaredCached(other, file, memo.Of(manifest).Key())
	if err != nil || !maps.Equal(got, map[string]bool{"gguflib": true}) {
		t.Fatalf("another tree: %v, %v", got, err)
	}

	// No key: a scan, nothing recorded; a scan's error is returned.
	before, _ := os.ReadFile(file)
	if got := declared(""); !maps.Equal(got, map[string]bool{"json": true}) {
		t.Fatalf("without a key: %v", got)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("a call without a key rewrote the record")
	}
	if _, err := DeclaredCached(filepath.Join(dir, "absent"), file, "k"); !os.IsNotExist(err) {
		t.Errorf("a missing tree: %v", err)
	}
}

// TestDeclaredCachedRefusesOtherRecords checks that a record is used only
// when it is whole, made for the same tree and key, and holds only names
// Declared returns: anything else (an older format among them) is a scan.
func TestDeclaredCachedRefusesOtherRecords(t *testing.T) {
	dir := t.TempDir()
	tree, file := filepath.Join(dir, "tree"), filepath.Join(dir, "tree.declared")
	testutil.WriteFile(t, filepath.Join(tree, "CMakeLists.txt"), "FetchContent_Declare(json URL x)\n")
	keys := [][2]string{{"tree", tree}, {"manifest", "k"}}
	good := string(memo.Format(declaredKind, memo.Entry{Keys: keys, Values: [][2]string{{"name", "fmt"}}}))
	testutil.WriteFile(t, file, good)
	if names, err := DeclaredCached(tree, file, "k"); err != nil || !maps.Equal(names, map[string]bool{"fmt": true}) {
		t.Fatalf("a good record: %v, %v", names, err)
	}
	for _, bad := range []string{
		good[:len(good)-1],
		"mlxbuild declared 2\n" + strconv.Quote(tree) + " k\nfmt\n",
		string(memo.Format(declaredKind, memo.Entry{Keys: [][2]string{{"tree", tree}, {"manifest", "other"}}, Values: [][2]string{{"name", "fmt"}}})),
		string(memo.Format(declaredKind, memo.Entry{Keys: keys, Values: [][2]string{{"name", "FMT"}}})),
		string(memo.Format(declaredKind, memo.Entry{Keys: keys, Values: [][2]string{{"other", "fmt"}}})),
	} {
		testutil.WriteFile(t, file, bad)
		if names, err := DeclaredCached(tree, file, "k"); err != nil || !maps.Equal(names, map[string]bool{"json": true}) {
			t.Errorf("record %q: %v, %v; want the tree scanned", bad, names, err)
		}
	}
}
