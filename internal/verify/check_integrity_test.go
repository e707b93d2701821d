package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// integrityFixture copies the integrity fixture so each test can damage its
// own tree.
func integrityFixture(t *testing.T) Integrity {
	dir := copyTree(t, "testdata/integrity")
	return Integrity{Tree: filepath.Join(dir, "tree"), Pristine: filepath.Join(dir, "pristine"), Overlay: filepath.Join(dir, "overlay")}
}

func TestIntegrityClean(t *testing.T) {
	r := mustPass(t, integrityFixture(t))
	if r.Reason != "4 files compared" {
		t.Errorf("reason = %q, want 4 files compared", r.Reason)
	}
}

func TestIntegrityHandEdit(t *testing.T) {
	c := integrityFixture(t)
	plant(t, c.Tree, "mlx/backend/gpu/copy.cpp", "{ /* rocm */ }", "{ /* quick fix */ }")
	r := mustFind(t, c, "tree/mlx/backend/gpu/copy.cpp:2", "hand edit: differs from")
	if !strings.Contains(r.Findings[0].Message, filepath.Join("overlay", "mlx", "backend", "gpu", "copy.cpp")) || len(r.Findings) != 1 {
		t.Errorf("the finding should name the overlay file the tree copy came from:\n%s", findingsText(r))
	}
	// A pristine file edited in the tree names the pristine source.
	c = integrityFixture(t)
	plant(t, c.Tree, "mlx/array.cpp", "return 42;", "return 43;")
	mustFind(t, c, "tree/mlx/array.cpp:4", "differs from "+filepath.Join(c.Pristine, "mlx", "array.cpp"))
}

func TestIntegrityRecordsCopiedExtraAndMissing(t *testing.T) {
	c := integrityFixture(t)
	writeFile(t, c.Tree, "LOCAL_FIXES.md", "1. **One.**\n")
	writeFile(t, c.Tree, "mlx/backend/rocm/stray.cpp", "int stray;\n")
	if err := os.Remove(filepath.Join(c.Tree, "mlx", "backend", "rocm", "device.cpp")); err != nil {
		t.Fatal(err)
	}
	r := mustFind(t, c, "tree/LOCAL_FIXES.md", "records file LOCAL_FIXES.md was copied")
	mustFind(t, c, "tree/mlx/backend/rocm/stray.cpp", "extra file")
	mustFind(t, c, "tree/mlx/backend/rocm/device.cpp", "missing from the tree")
	if len(r.Findings) != 3 {
		t.Errorf("want 3 findings:\n%s", findingsText(r))
	}
	// Ignore globs allow known extra files.
	c.Ignore = []string{"mlx/backend/rocm/stray.cpp"}
	if r := run(t, c); len(r.Findings) != 2 {
		t.Errorf("ignored file still reported:\n%s", findingsText(r))
	}
}

func TestIntegrityNoTree(t *testing.T) {
	c := integrityFixture(t)
	c.Tree = filepath.Join(t.TempDir(), "absent")
	if r := run(t, c); r.Status != Skip || !strings.Contains(r.Reason, "no tree") {
		t.Errorf("missing tree: %v %q, want skip", r.Status, r.Reason)
	}
	c.Require = true
	mustFind(t, c, "absent", "the tree does not exist")
}

func TestIntegrityNestedRecords(t *testing.T) {
	// Records may sit deeper in the overlay, as overlays.Materialize allows.
	c := integrityFixture(t)
	writeFile(t, c.Overlay, "mlx/backend/rocm/LOCAL_FIXES.md", "1. **One.**\n")
	mustFind(t, c, "tree/mlx/backend/rocm/LOCAL_FIXES.md", "missing from the tree")
	c.Records = []string{"UPSTREAM", "LOCAL_FIXES.md", "mlx/backend/rocm/LOCAL_FIXES.md"}
	mustPass(t, c)
	writeFile(t, c.Tree, "mlx/backend/rocm/LOCAL_FIXES.md", "1. **One.**\n")
	mustFind(t, c, "tree/mlx/backend/rocm/LOCAL_FIXES.md", "records file mlx/backend/rocm/LOCAL_FIXES.md was copied")
}
