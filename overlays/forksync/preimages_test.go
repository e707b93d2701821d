package forksync

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestRetargetKeepsFirstPreimages: a conflicted retarget saves the overlay's
// files it would change (the conflicted ones included) with their mtimes;
// the re-run after the user resolved the conflicts in the overlay goes
// through and keeps the first run's pre-images, not the resolution. The
// pre-retarget view of the overlay is the overlay as it was, content and
// mtimes, though the overlay now holds the retargeted files.
func TestRetargetKeepsFirstPreimages(t *testing.T) {
	f := newRefFixture(t)
	p2 := f.conflictingPin()
	// Old mtimes, so a copy that took the time of its making would show.
	old := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	err := filepath.WalkDir(f.overlay, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	before, beforeTimes := snap(t, f.overlay), mtimes(t, f.overlay)
	o := retargetOptions{cacheRoot: f.cache, backend: "rocm", Overlay: f.overlay, upstream: f.mlx.dir, oldPin: f.p1, newPin: p2, backendDirs: []string{rocm}}
	res, err := Retarget(context.Background(), o)
	var ce *RetargetConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("first retarget: %v", err)
	}
	pre, err := ReadPreimages(f.cache, "rocm", f.p1, p2)
	if err != nil || pre == nil {
		t.Fatalf("no pre-images after the conflicted retarget: %v", err)
	}
	if want := []string{"CMakeLists.txt", "UPSTREAM", "mlx/io/safetensors.cpp", "mlx/ops.cpp"}; !reflect.DeepEqual(pre.Files, want) || len(pre.Absent) != 0 {
		t.Errorf("pre-images of %q (absent %q), want %q", pre.Files, pre.Absent, want)
	}
	st := filepath.Join(f.overlay, "mlx", "io", "safetensors.cpp")
	testutil.WriteFile(t, st, keepBothSides(readFile(t, res.conflicts[1].staged)))
	if err := os.Remove(filepath.Join(f.overlay, "CMakeLists.txt")); err != nil {
		t.Fatal(err)
	}
	res, err = Retarget(context.Background(), o)
	if err != nil {
		t.Fatalf("re-run after the resolution: %v", err)
	}
	var out strings.Builder
	res.Render(&out)
	if !strings.Contains(out.String(), "the overlay's files as they were before: "+pre.Dir+" (") {
		t.Errorf("the summary does not say where the pre-images are:\n%s", out.String())
	}
	if again, err := ReadPreimages(f.cache, "rocm", f.p1, p2); err != nil || !reflect.DeepEqual(again, pre) {
		t.Errorf("the re-run changed the pre-images: %+v, want %+v (%v)", again, pre, err)
	}
	view := filepath.Join(t.TempDir(), "view")
	if err := pre.OverlayView(f.overlay, view); err != nil {
		t.Fatal(err)
	}
	sameSnap(t, snap(t, view), before)
	if gotTimes := mtimes(t, view); !reflect.DeepEqual(gotTimes, beforeTimes) {
		t.Errorf("the view's mtimes %v, want the overlay's before the retarget %v", gotTimes, beforeTimes)
	}
}

// TestPreimagesRecordCreatedFilesAbsent: a path the retarget creates is
// recorded as absent and left out of the view.
func TestPreimagesRecordCreatedFilesAbsent(t *testing.T) {
	f := newRefFixture(t)
	if err := savePreimages(f.cache, "rocm", f.overlay, f.p1, f.c0, []string{"mlx/new.h", "mlx/ops.cpp"}); err != nil {
		t.Fatal(err)
	}
	pre, err := ReadPreimages(f.cache, "rocm", f.p1, f.c0)
	if err != nil || pre == nil || !reflect.DeepEqual(pre.Absent, []string{"mlx/new.h"}) || !reflect.DeepEqual(pre.Files, []string{"mlx/ops.cpp"}) {
		t.Fatalf("pre-images %+v, %v", pre, err)
	}
	testutil.WriteFile(t, filepath.Join(f.overlay, "mlx", "new.h"), "created by the retarget\n")
	view := filepath.Join(t.TempDir(), "view")
	if err := pre.OverlayView(f.overlay, view); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(view, "mlx", "new.h")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the file the retarget created is in the view: %v", err)
	}
}

// mtimes are the modification times of the files under dir, by path.
func mtimes(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = fi.ModTime()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
