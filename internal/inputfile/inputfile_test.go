package inputfile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func file(path string) File {
	return File{Path: path, What: "test file", Fix: "point TEST_VAR at a regular file", Limit: 1 << 10}
}

// TestRefusesWhatNeverEnds: a FIFO returns at once (its open does not wait
// for a writer), /dev/zero is refused before a byte is read, a directory
// too: each a configuration error naming the file, its kind and the fix.
func TestRefusesWhatNeverEnds(t *testing.T) {
	inputs := testutil.InputsThatNeverEnd(t)
	inputs["directory"] = t.TempDir()
	for name, path := range inputs {
		err := testutil.Returns(t, "reading a "+name, func() error {
			_, err := file(path).Read(context.Background())
			return err
		})
		if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), "TEST_VAR") {
			t.Errorf("%s: err = %v", name, err)
		}
		err = testutil.Returns(t, "opening a "+name, func() error {
			_, err := file(path).Open()
			return err
		})
		if fail.KindOf(err) != fail.Config {
			t.Errorf("Open %s: err = %v", name, err)
		}
	}
}

// TestBound: a file over the bound is refused naming the bound, before it
// is read (a sparse file of 1 GiB costs nothing); one at the bound is read.
func TestBound(t *testing.T) {
	f := file(testutil.SparseFile(t, 1<<30))
	_, err := f.Read(context.Background())
	if fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "larger than 1 KiB") || !strings.Contains(err.Error(), f.Path) {
		t.Errorf("err = %v", err)
	}
	f = file(testutil.SparseFile(t, 1<<10))
	if data, err := f.Read(context.Background()); err != nil || len(data) != 1<<10 {
		t.Errorf("a file at the bound: %d bytes, %v", len(data), err)
	}
}

// TestProcFile: a regular file whose size says 0 (/proc's) is read to its
// end, and still bounded.
func TestProcFile(t *testing.T) {
	f := file("/proc/self/status")
	f.Limit = 1 << 20
	if data, err := f.Read(context.Background()); err != nil || !strings.Contains(string(data), "Name:") {
		t.Errorf("read %q, %v", data, err)
	}
	f.Limit = 8
	if _, err := f.Read(context.Background()); fail.KindOf(err) != fail.Config {
		t.Errorf("over the bound: %v", err)
	}
}

// TestMissingAndCancelled: a missing file keeps its fs error; a done
// context stops the read.
func TestMissingAndCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if _, err := file(path).Read(context.Background()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := file(path).Read(ctx); fail.KindOf(err) != fail.Interrupted {
		t.Errorf("cancelled: %v", err)
	}
	if data, err := file(path).Read(context.Background()); err != nil || string(data) != "x" {
		t.Errorf("read %q, %v", data, err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{16 << 20: "16 MiB", 2 << 30: "2 GiB", 1536: "1536 bytes", 3 << 10: "3 KiB"} {
		if got := size(n); got != want {
			t.Errorf("size(%d) = %q, want %q", n, got, want)
		}
	}
}
