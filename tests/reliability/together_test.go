package reliability

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestTwoFirstBuildsTogether starts two build:cpu of the bundled example
// at once on a fresh clone (no cache yet), as a terminal's build beside an
// editor's: both must exit 0, one waiting for the other, and no message
// may name pid 0. Before, the second often found the first's half-made
// cache root ("already holds files and no CACHEDIR.TAG of mlxbuild, so it
// is not mlxbuild's cache", exit 2).
func TestTwoFirstBuildsTogether(t *testing.T) {
	bin := compiledMlxbuild(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	testutil.CopyTree(t, filepath.Join(repo, "examples", "minimlx"), filepath.Join(project, "examples", "minimlx"))
	testutil.CopyTree(t, filepath.Join(repo, "mlxbuild.yaml"), filepath.Join(project, "mlxbuild.yaml"))
	env := append(testutil.EnvWithout("MLXBUILD_CACHE", "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS"), "NO_COLOR=1")
	var wg sync.WaitGroup
	outs := make([]bytes.Buffer, 2)
	errs := make([]error, 2)
	start := make(chan struct{})
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "build:cpu")
			cmd.Dir, cmd.Env = project, env
			cmd.Stdout, cmd.Stderr = &outs[i], &outs[i]
			<-start
			errs[i] = cmd.Run()
		}()
	}
	close(start)
	wg.Wait()
	waited := 0
	for i, out := range outs {
		if errs[i] != nil {
			t.Errorf("build %d: %v\n%s", i+1, errs[i], out.String())
		}
		if strings.Contains(out.String(), "waiting for another mlxbuild") {
			waited++
		}
		if strings.Contains(out.String(), "pid 0") {
			t.Errorf("build %d names pid 0:\n%s", i+1, out.String())
		}
	}
	if waited != 1 {
		t.Errorf("%d builds said they waited, want one:\n%s\n---\n%s", waited, outs[0].String(), outs[1].String())
	}
}
