package forksync

import (
	"os"
	"path/filepath"
	"strings"
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

// TestRecordsEscapeWhatTheyQuote: an item title holding an ESC sequence and
// a path holding one are printed escaped by overlay:records (they were
// printed raw).
func TestRecordsEscapeWhatTheyQuote(t *testing.T) {
	root := t.TempDir()
	ov := filepath.Join(root, "patches")
	testutil.WriteFile(t, filepath.Join(ov, "LOCAL_FIXES.md"), "# Local fixes\n\n1. **Guard \x1b[31mred\x1b[0m.** `mlx/x\x1b[2J.h`\n   Status: retarget-only\n")
	testutil.WriteFile(t, filepath.Join(ov, "mlx/x\x1b[2J.h"), "x\n")
	os.MkdirAll(filepath.Join(root, "mlx"), 0o755)
	testutil.WriteFile(t, filepath.Join(root, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: cache\nbackends:\n  rocm: {overlay: patches}\n")
	cfg, err := configs.LoadConfig(root, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	reps, err := Records(cfg, "rocm")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range reps {
		r.Render(&b)
	}
	if out := b.String(); strings.ContainsRune(out, 0x1b) || !strings.Contains(out, `Guard \x1b[31mred\x1b[0m`) {
		t.Errorf("output:\n%q", out)
	}
}
