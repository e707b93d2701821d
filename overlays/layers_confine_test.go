package overlays

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestComposeRefusesALayerThatLeavesTheOverlay: a layer whose To climbs
// out (configs refuses it in a project file; Compose holds even for a
// caller that did not validate) is refused with exit 2 before any file is
// placed, the good layer's included; a link planted in the composed
// overlay is not written through.
func TestComposeRefusesALayerThatLeavesTheOverlay(t *testing.T) {
	root := t.TempDir()
	good, bad := filepath.Join(root, "good"), filepath.Join(root, "bad")
	writeFiles(t, good, files{"mlx/a.h": "a\n"})
	writeFiles(t, bad, files{"escaped.h": "escaped\n"})
	dst := filepath.Join(root, "cache", "rocm", "overlay")
	_, err := Compose([]Layer{{Dir: good}, {Dir: bad, To: "../../.."}}, layerRecords, dst)
	if want := `refusing unsafe path "../../../escaped.h": it has a .. component`; err == nil || !strings.Contains(err.Error(), want) || fail.ExitCode(err) != 2 {
		t.Fatalf("Compose = %v, want exit 2 with %q", err, want)
	}
	for _, p := range []string{filepath.Join(root, "escaped.h"), dst} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	outside := filepath.Join(root, "outside")
	if err := os.MkdirAll(filepath.Join(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dst, "mlx")); err != nil {
		t.Fatal(err)
	}
	if _, err = Compose([]Layer{{Dir: good}}, layerRecords, dst); err == nil || !strings.Contains(err.Error(), "mlx is a symbolic link") {
		t.Errorf("Compose through a planted link = %v", err)
	}
	if es, _ := os.ReadDir(outside); len(es) != 0 {
		t.Errorf("%s holds %v", outside, es)
	}
}
