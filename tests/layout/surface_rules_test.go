package layout

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSurfaceReport lists the surface; MLXBUILD_SURFACE_REPORT=FILE
// writes the full list there.
func TestSurfaceReport(t *testing.T) {
	s := loadSurface(t, filepath.Join("..", ".."), module)
	all, used, kept, unused := s.counts()
	t.Logf("%d exported names: %d used, %d kept, %d unused", all, used, kept, unused)
	if out := os.Getenv("MLXBUILD_SURFACE_REPORT"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s.report(f)
	}
}
