package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindArchiveShallowest: the shallowest lib<name>.a wins, then the
// first in byte order among equally deep ones; a directory of that name is
// not an archive; a build without one is an error that names it.
func TestFindArchiveShallowest(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"sub/z/libmlx.a", "sub/b/libmlx.a", "sub/a/deeper/libmlx.a", "CMakeFiles/x.dir/y/libmlx.a", "zz/libmlx.a.d/libmlx.a",
		"sub/libmlx.a/not-an-archive",
	} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "libkernels.a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := findArchive(dir, "mlx"); err != nil || got != filepath.Join(dir, "sub/b/libmlx.a") {
		t.Errorf("mlx: %q, %v; want sub/b/libmlx.a", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "libmlx.a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := findArchive(dir, "mlx"); err != nil || got != filepath.Join(dir, "libmlx.a") {
		t.Errorf("mlx with a top-level copy: %q, %v", got, err)
	}
	if got, err := findArchive(dir, "kernels"); err == nil || !strings.Contains(err.Error(), "no libkernels.a") {
		t.Errorf("kernels (only a directory of that name): %q, %v", got, err)
	}
	if _, err := findArchive(filepath.Join(dir, "absent"), "mlx"); err == nil {
		t.Error("a missing build directory gave no error")
	}
}
