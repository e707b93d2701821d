package atomicfile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// childEnv makes the test binary a writer that stops halfway (see
// TestMain): a crash needs a whole process to kill.
const childEnv = "ATOMICFILE_TEST_CHILD_PATH"

func TestMain(m *testing.M) {
	if dir := os.Getenv(dirChildEnv); dir != "" {
		stopAt := os.Getenv(dirChildStep)
		_, err := replaceDir(dir, newSet, func(step string) {
			if step == stopAt {
				fmt.Println("halfway")
				time.Sleep(time.Minute) // until killed
			}
		})
		fmt.Fprintln(os.Stderr, "the child was not killed:", err)
		os.Exit(1)
	}
	if path := os.Getenv(childEnv); path != "" {
		err := Options{Perm: 0o644}.WriteFunc(path, func(w io.Writer) error {
			if _, err := w.Write(bytes.Repeat([]byte("new"), 1000)); err != nil {
				return err
			}
			fmt.Println("halfway")
			time.Sleep(time.Minute) // until killed
			return nil
		})
		fmt.Fprintln(os.Stderr, "the child was not killed:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// signalWriter cancels the child's context once it says it is halfway.
type signalWriter struct {
	once   sync.Once
	cancel context.CancelFunc
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), "halfway") {
		w.once.Do(w.cancel)
	}
	return len(p), nil
}

// TestKilledWriterLeavesOldFile kills (SIGKILL) a process in the middle of
// a write: the target must still hold its old content, whole.
func TestKilledWriterLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stamp.json")
	old := []byte(`{"old": true}` + "\n")
	if err := Write(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	killCtx, kill := context.WithCancel(ctx)
	defer kill()
	res, err := proc.Run(killCtx, proc.Cmd{Path: os.Args[0], Args: []string{"-test.run=^$"},
		Env: append(os.Environ(), childEnv+"="+path), Stdout: &signalWriter{cancel: kill}})
	if err == nil || ctx.Err() != nil || !strings.Contains(string(res.Stdout), "halfway") {
		t.Fatalf("the child was not killed halfway: %v\n%s%s", err, res.Stdout, res.Stderr)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, old) {
		t.Errorf("after the kill the file holds %q (%v), want the old %q", got, err, old)
	}
	// The killed process leaves its temporary file (no one was left to
	// remove it), under the default pattern and with the partial data.
	left, _ := filepath.Glob(filepath.Join(dir, ".stamp.json.tmp*"))
	if len(left) != 1 {
		t.Errorf("temporary files after the kill: %q, want the child's one", left)
	}
}
