package cache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCleanKeepsTheDependencyStore: a clean of the whole cache keeps the
// verified dependency store (refilling it takes the network) and says so;
// with Deps it goes too.
func TestCleanKeepsTheDependencyStore(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	if err := Prepare(For(root, "cpu"), ""); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(root, depsEntry)
	testutil.WriteFile(t, filepath.Join(store, "sha256", "ab", "json.tar.gz"), "verified")
	testutil.WriteFile(t, filepath.Join(root, "src", "git", "x"), "mirror")
	res, err := Clean(root, all, CleanScope{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(store, "sha256", "ab", "json.tar.gz")); err != nil || string(b) != "verified" {
		t.Errorf("Clean without Deps removed the dependency store: %q, %v", b, err)
	}
	if !slices.Equal(res.Kept, []string{store}) || slices.Contains(res.removed, store) {
		t.Errorf("Kept %q, Removed %q; want the store kept and said", res.Kept, res.removed)
	}
	if _, err := os.Stat(filepath.Join(root, "src")); !os.IsNotExist(err) {
		t.Errorf("Clean left the shared sources: %v", err)
	}
	res, err = Clean(root, all, CleanScope{Shared: true, Deps: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(store); !os.IsNotExist(err) || !slices.Contains(res.removed, store) || len(res.Kept) != 0 {
		t.Errorf("Clean with Deps: store %v, Removed %q, Kept %q; want it removed", err, res.removed, res.Kept)
	}
}

// TestCleanRemovesTheDependencyProvider: the CMake dependency provider a
// build writes beside its tree (internal/flow writes it at the layout's
// DepsProvider) is mlxbuild's: cache:clean removes it and does not list
// it among the entries it did not make.
func TestCleanRemovesTheDependencyProvider(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	l := For(root, "rocm")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	provider := filepath.Join(root, "rocm", "deps-provider.cmake")
	if l.DepsProvider != provider {
		t.Fatalf("DepsProvider = %s, want %s", l.DepsProvider, provider)
	}
	testutil.WriteFile(t, provider, "# provider\n")
	res, err := Clean(root, []string{"rocm"}, CleanScope{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Left) != 0 {
		t.Errorf("Clean left %q as not mlxbuild's", res.Left)
	}
	if _, err := os.Stat(provider); !os.IsNotExist(err) {
		t.Errorf("Clean kept %s: %v", provider, err)
	}
}

// TestCleanRemovesTheRelinkFile: the relink file, cargo.txt's watched
// output, is mlxbuild's: cache:clean removes it (a build script then
// reruns, as it must with the build gone) and does not list it as left.
func TestCleanRemovesTheRelinkFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache")
	l := For(root, "cpu")
	if err := Prepare(l, ""); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, l.Relink, "changed\n")
	res, err := Clean(root, []string{"cpu"}, CleanScope{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(l.Relink); !os.IsNotExist(err) || len(res.Left) != 0 {
		t.Errorf("Clean kept %s (%v) or left %q", l.Relink, err, res.Left)
	}
}
