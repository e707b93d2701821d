package benchcsv

import (
	"bytes"
	"context"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCompareInputsThatNeverEnd: bench:compare's files (each CSV and the
// catalog) that are a FIFO, /dev/zero or over the bound are refused at
// once, naming the file; before, a FIFO waited for a writer for ever and
// /dev/zero was read until the kernel killed the process.
func TestCompareInputsThatNeverEnd(t *testing.T) {
	run := func(before, after, catalog string) error {
		return Run(context.Background(), &bytes.Buffer{}, before, after, catalog, true, DefaultOptions(), "")
	}
	t.Run("before", func(t *testing.T) {
		testutil.RefusesInputsThatNeverEnd(t, inputfile.TableLimit, func(t *testing.T, path string) (string, error) {
			return path, run(path, "testdata/after.csv", "testdata/catalog.tsv")
		}, "bench:compare")
	})
	t.Run("after", func(t *testing.T) {
		testutil.RefusesInputsThatNeverEnd(t, inputfile.TableLimit, func(t *testing.T, path string) (string, error) {
			return path, run("testdata/before.csv", path, "testdata/catalog.tsv")
		}, "bench:compare")
	})
	t.Run("catalog", func(t *testing.T) {
		testutil.RefusesInputsThatNeverEnd(t, inputfile.ConfigLimit, func(t *testing.T, path string) (string, error) {
			return path, run("testdata/before.csv", "testdata/after.csv", path)
		}, "-catalog")
	})
}
