package overlays

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestPendingTouchesIsWhatMaterializeTouches: before a Materialize,
// PendingTouches names exactly the files whose source was touched with
// the same content (an overlay file and a pristine one), not an edited
// one nor one left alone; the Materialize then touches exactly those and
// lists them in TouchedFiles, after which nothing is pending.
func TestPendingTouchesIsWhatMaterializeTouches(t *testing.T) {
	f := newFixture(t)
	f.run(t)
	if got := PendingTouches(f.manifest, f.overlay, f.pristine); len(got) != 0 {
		t.Fatalf("PendingTouches right after Materialize = %q, want none", got)
	}
	later := time.Now().Add(2 * time.Second)
	for _, p := range []string{filepath.Join(f.overlay, "mlx/backend/rocm/qmm.hip"), filepath.Join(f.pristine, "mlx/array.h")} {
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	f.o["mlx/backend/rocm/device/x.hpp"] = "// rocm x, edited\n"
	writeFiles(t, f.overlay, files{"mlx/backend/rocm/device/x.hpp": f.o["mlx/backend/rocm/device/x.hpp"]})
	want := []string{"mlx/array.h", "mlx/backend/rocm/qmm.hip"}
	if got := PendingTouches(f.manifest, f.overlay, f.pristine); !slices.Equal(got, want) {
		t.Errorf("PendingTouches = %q, want %q", got, want)
	}
	if got := PendingTouches(f.manifest, f.overlay, ""); !slices.Equal(got, want[1:]) {
		t.Errorf("PendingTouches without the pristine folder = %q, want %q", got, want[1:])
	}
	st := f.run(t)
	if !slices.Equal(st.TouchedFiles, want) || st.Touched != len(want) {
		t.Errorf("Materialize touched %d: %q, want %q", st.Touched, st.TouchedFiles, want)
	}
	if got := PendingTouches(f.manifest, f.overlay, f.pristine); len(got) != 0 {
		t.Errorf("PendingTouches after the Materialize = %q, want none", got)
	}
}
