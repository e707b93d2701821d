package logittrace

import (
	"bytes"
	"context"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestTracesInputsThatNeverEnd: bench:traces' files that are a FIFO,
// /dev/zero or over the bound are refused at once, naming the file.
func TestTracesInputsThatNeverEnd(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	t.Run("reference", func(t *testing.T) {
		testutil.RefusesInputsThatNeverEnd(t, inputfile.TableLimit, func(t *testing.T, path string) (string, error) {
			return path, Run(context.Background(), &bytes.Buffer{}, path, ref, DefaultDecided)
		}, "bench:traces")
	})
	t.Run("candidate", func(t *testing.T) {
		testutil.RefusesInputsThatNeverEnd(t, inputfile.TableLimit, func(t *testing.T, path string) (string, error) {
			return path, Run(context.Background(), &bytes.Buffer{}, ref, path, DefaultDecided)
		}, "bench:traces")
	})
}
