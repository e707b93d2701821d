package flow_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestNoopTrustsNinjasDryRunOnlyWhenItHasNoWork builds the example for the
// CPU with real CMake and Ninja. A no-op is answered by Ninja's dry run
// (the log is `ninja -n`'s) and says one line; when an object is gone from
// the build directory (nothing mlxbuild decides on changed, so only Ninja
// can tell), the dry run's work makes the real build run and rebuild it;
// then the next run is a no-op again.
func TestNoopTrustsNinjasDryRunOnlyWhenItHasNoWork(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	build := func() (*flow.Summary, string, string) {
		t.Helper()
		var stderr bytes.Buffer
		sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stderr, Stderr: &stderr}, "build:cpu", "cpu")
		if err != nil {
			t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
		}
		log, err := os.ReadFile(sum.LogPath)
		if err != nil {
			t.Fatal(err)
		}
		return sum, string(log), stderr.String()
	}
	build()
	sum, log, out := build()
	if sum.Steps != 0 || sum.Reconfigured || !strings.Contains(log, " -n -C ") || !strings.Contains(log, "ninja: no work to do.") {
		t.Fatalf("second build: %+v; log:\n%s", sum, log)
	}
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "cpu is up to date") {
		t.Errorf("a no-op said more than one line:\n%s", out)
	}

	var object string
	_ = filepath.WalkDir(filepath.Join(p.Cache, "cpu", "build"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && object == "" && strings.HasSuffix(path, ".o") {
			object = path
		}
		return err
	})
	if object == "" {
		t.Fatal("the build directory has no object file")
	}
	if err := os.Remove(object); err != nil {
		t.Fatal(err)
	}
	sum, log, out = build()
	if sum.Steps == 0 || strings.Contains(log, " -n -C ") || strings.Contains(out, "up to date") {
		t.Errorf("with %s gone: %+v; said:\n%s\nlog:\n%s", object, sum, out, log)
	}
	if _, err := os.Stat(object); err != nil {
		t.Errorf("the real build did not make %s again: %v", object, err)
	}
	if sum, log, _ = build(); sum.Steps != 0 || !strings.Contains(log, " -n -C ") {
		t.Errorf("the build after the rebuild: %+v; log:\n%s", sum, log)
	}
}
