package configs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestConfigThatNeverEnds: MLXBUILD_CONFIG naming a FIFO returned only
// when a writer came (and ignored SIGTERM), /dev/zero read until the
// kernel's OOM killer came; each is now refused at once, as is a file
// over the bound.
func TestConfigThatNeverEnds(t *testing.T) {
	testutil.RefusesInputsThatNeverEnd(t, inputfile.ConfigLimit, func(t *testing.T, path string) (string, error) {
		_, err := LoadConfig(t.TempDir(), func(k string) string { return map[string]string{"MLXBUILD_CONFIG": path}[k] })
		return path, err
	}, "MLXBUILD_CONFIG")
}

// TestWalkedUpProjectFIFO: an mlxbuild.yaml found by walking up is read
// through the same check.
func TestWalkedUpProjectFIFO(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, projectFileName)
	if err := syscall.Mkfifo(file, 0o600); err != nil {
		t.Fatal(err)
	}
	err := testutil.Returns(t, "a FIFO mlxbuild.yaml", func() error {
		_, err := LoadConfig(filepath.Join(dir), func(string) string { return "" })
		return err
	})
	if err == nil || !strings.Contains(err.Error(), file+": it is a FIFO") || !strings.Contains(err.Error(), "MLXBUILD_CONFIG") {
		t.Errorf("err = %v", err)
	}
}

// TestSpecThatNeverEnds: a spec override that is a FIFO, /dev/zero or too
// large is refused naming the key that points at it, with its position.
func TestSpecThatNeverEnds(t *testing.T) {
	testutil.RefusesInputsThatNeverEnd(t, inputfile.ConfigLimit, func(t *testing.T, path string) (string, error) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "mlx"), 0o755)
		os.MkdirAll(filepath.Join(dir, "ov"), 0o755)
		testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source: { dir: mlx }\nbackends:\n  rocm: { overlay: ov, spec: "+path+", merge: extend }\n")
		c, err := LoadConfig(dir, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Spec("rocm")
		return path, err
	}, "backends.rocm.spec (", "mlxbuild.yaml:3:")
}
