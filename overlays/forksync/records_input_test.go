package forksync

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestRecordsThatNeverEnd: overlay:records of an overlay whose
// LOCAL_FIXES.md is a FIFO, /dev/zero or over the bound, with UPSTREAM a
// FIFO too, waited or read for ever; it now says which file is not a
// regular one.
func TestRecordsThatNeverEnd(t *testing.T) {
	testutil.RefusesInputsThatNeverEnd(t, inputfile.ConfigLimit, func(t *testing.T, path string) (string, error) {
		root := t.TempDir()
		ov := filepath.Join(root, "patches")
		os.MkdirAll(filepath.Join(root, "mlx"), 0o755)
		os.MkdirAll(ov, 0o755)
		if err := syscall.Mkfifo(filepath.Join(ov, "UPSTREAM"), 0o600); err != nil {
			t.Fatal(err)
		}
		fixes := filepath.Join(ov, "LOCAL_FIXES.md")
		if err := os.Symlink(path, fixes); err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, filepath.Join(root, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: cache\nbackends:\n  rocm: {overlay: patches}\n")
		cfg, err := configs.LoadConfig(root, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		_, err = Records(cfg, "rocm")
		return fixes, err
	})
}
