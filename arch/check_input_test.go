package arch

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCheckInputThatNeverEnds: arch:check of a FIFO waited for a writer
// for ever, of /dev/zero read until the kernel killed it; both, and a file
// over the bound (16 GiB, sparse), are refused naming the file.
func TestCheckInputThatNeverEnds(t *testing.T) {
	testutil.RefusesInputsThatNeverEnd(t, inputfile.BinaryLimit, func(t *testing.T, path string) (string, error) {
		_, err := Check(context.Background(), path, Options{Env: testEnv(isolated(t, t.TempDir()))})
		return path, err
	}, "arch:check")
}

// TestKFDNodeThatNeverEnds: a node's properties under
// MLXBUILD_KFD_TOPOLOGY that is a FIFO or /dev/zero held the probe for
// ever; it is now refused naming the variable.
func TestKFDNodeThatNeverEnds(t *testing.T) {
	testutil.RefusesInputsThatNeverEnd(t, inputfile.ConfigLimit, func(t *testing.T, path string) (string, error) {
		dir := t.TempDir()
		props := filepath.Join(dir, "1", "properties")
		if err := os.Mkdir(filepath.Dir(props), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(path, props); err != nil {
			t.Fatal(err)
		}
		_, err := readKFD(dir)
		return props, err
	}, envKFD)
}
