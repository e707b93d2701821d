package reliability

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// compiledMlxbuild compiles the repository's mlxbuild (the tools a nap
// build needs present) and returns the binary's path.
func compiledMlxbuild(t *testing.T) string {
	t.Helper()
	testutil.NeedTools(t, "go", "cmake", "ninja", "sleep")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return testutil.CompileMlxbuild(t, repo)
}

// napBuild is `mlxbuild <args>` in a fresh napProject with three jobs and
// a marker variable (every descendant inherits it) that names the run; what
// still carries the marker when the test ends is killed (by pid: only what
// this test started has it).
func napBuild(t *testing.T, bin, name string, args ...string) (cmd *exec.Cmd, marker string) {
	t.Helper()
	marker = fmt.Sprintf("MLXBUILD_RELIABILITY_RUN=%s-%d", name, time.Now().UnixNano())
	t.Cleanup(func() {
		for _, p := range testutil.Marked(marker) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	cmd = exec.Command(bin, args...)
	cmd.Dir = napProject(t)
	cmd.Env = append(testutil.EnvWithout("MLXBUILD_CACHE", "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS"), marker, "MLXBUILD_JOBS=3", "NO_COLOR=1")
	return cmd, marker
}
