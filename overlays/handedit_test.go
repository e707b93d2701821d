package overlays

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestHandEditInTheTreeIsNamed: a tree file edited by hand is put back and
// named, with the file the edit belongs in; an edit of the overlay itself is
// a plain write, not a hand edit.
func TestHandEditInTheTreeIsNamed(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	// Old enough that the manifest trusts the sources' stat data.
	old := time.Now().Add(-time.Hour)
	for _, root := range []string{f.pristine, f.overlay} {
		filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
			if err == nil {
				os.Chtimes(p, old, old)
			}
			return nil
		})
	}
	f.run(t)

	edited := "mlx/backend/common/util.h"
	if err := os.WriteFile(filepath.Join(f.tree, edited), []byte("// a fix made in the tree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, m, err := Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.HandEdited, []string{edited}) || s.Written != 1 {
		t.Fatalf("stats %+v, want %s written as a hand edit", s, edited)
	}
	if got, _ := os.ReadFile(filepath.Join(f.tree, edited)); string(got) != f.o[edited] {
		t.Errorf("the tree holds %q, want the overlay's version back", got)
	}
	file, origin, ok := m.SourceOf(f.tree, filepath.Join(f.tree, edited), f.pristine, f.overlay)
	if !ok || origin != FromOverlay || file != filepath.Join(f.overlay, edited) {
		t.Errorf("SourceOf = %s %v %v, want the overlay's file", file, origin, ok)
	}
	if file, origin, ok := m.SourceOf(f.tree, "mlx/array.cpp", f.pristine, f.overlay); !ok || origin != fromPristine || file != filepath.Join(f.pristine, "mlx/array.cpp") {
		t.Errorf("SourceOf(mlx/array.cpp) = %s %v %v, want the pristine file", file, origin, ok)
	}
	if _, _, ok := m.SourceOf(f.tree, filepath.Join(filepath.Dir(f.tree), "build", "x.o"), f.pristine, f.overlay); ok {
		t.Error("a file outside the tree has a source")
	}

	// The user edits the overlay: written, but no hand edit.
	if err := os.WriteFile(filepath.Join(f.overlay, edited), []byte("// util, fixed again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err = Materialize(f.pristine, f.overlay, f.tree, f.manifest, testRecords)
	if err != nil || s.Written != 1 || len(s.HandEdited) != 0 {
		t.Errorf("an overlay edit: %+v, %v; want one write and no hand edit", s, err)
	}
}
