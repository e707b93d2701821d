package records

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestGateRecordsThatNeverEnd: an overlay whose UPSTREAM is a FIFO, whose
// LOCAL_FIXES.md is /dev/zero and whose README.md and residual are FIFOs
// held the gate for ever (or until the kernel killed it); each is now a
// problem in its own file, and the gate returns.
func TestGateRecordsThatNeverEnd(t *testing.T) {
	ov := t.TempDir()
	for _, name := range []string{UpstreamName, readmeName, ResidualName} {
		if err := syscall.Mkfifo(filepath.Join(ov, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ov, LocalFixesName)); err != nil {
		t.Fatal(err)
	}
	var probs []fileProblem
	testutil.Returns(t, "the records gate", func() error {
		probs, _ = Gate{Overlay: ov}.Check()
		return nil
	})
	refused := map[string]bool{}
	for _, p := range probs {
		if strings.Contains(p.Message, "not a regular file") {
			refused[filepath.Base(p.File)] = true
		}
	}
	for _, name := range []string{UpstreamName, LocalFixesName, readmeName, ResidualName} {
		if !refused[name] {
			t.Errorf("%s: no problem saying it is not a regular file; got %+v", name, probs)
		}
	}
}
