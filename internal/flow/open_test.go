package flow

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestRunHoldsTheLockFromOpenToClose: a build's run holds its backend's
// lock from the opening to close, and close alone gives it up; the run
// says once whether the build directory is configured; plan's run
// takes no lock; apply takes the backend it names, whatever the
// selection would choose.
func TestRunHoldsTheLockFromOpenToClose(t *testing.T) {
	testutil.NeedTools(t, "ninja")
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), "project(mlx CXX)\n")
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: mlx\n")
	env := map[string]string{"MLXBUILD_CACHE": filepath.Join(dir, "cache"), "PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "NO_COLOR": "1"}
	o := Options{Dir: dir, Env: func(k string) string { return env[k] }, GOOS: "linux", Stdout: io.Discard, Stderr: io.Discard}
	ctx := context.Background()
	locked := func(l cache.Layout) bool {
		t.Helper()
		wait, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		unlock, err := cache.Lock(wait, l.Lock, nil)
		if err != nil {
			return true
		}
		unlock()
		return false
	}

	r, err := open(ctx, o, buildRequest("build:cpu", "cpu"))
	if err != nil {
		t.Fatal(err)
	}
	layout := r.Layout
	if r.Configured() {
		t.Error("a fresh cache: configured")
	}
	if !locked(layout) {
		t.Error("the build's run does not hold the lock after open")
	}
	r.close()
	if locked(layout) {
		t.Error("the lock is still held after close")
	}

	testutil.WriteFile(t, filepath.Join(layout.Build, "build.ninja"), "rule cp\n  command = cp $in $out\nbuild out: cp in\n")
	r, err = open(ctx, o, buildRequest("build:cpu", "cpu"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Configured() || !locked(layout) {
		t.Errorf("a configured build: configured %v, locked %v", r.Configured(), locked(layout))
	}
	r.close()
	r.close() // a second close gives nothing up twice
	if locked(layout) {
		t.Error("the lock is still held after close")
	}

	r, err = open(ctx, o, request{target: "plan:cpu", backend: "cpu", resolve: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Configured() || r.lock.dir != "" || locked(layout) {
		t.Errorf("plan's run: configured %v, lock %q", r.Configured(), r.lock.dir)
	}
	r.close()

	env["MLXBUILD_BACKENDS"] = "rocm"
	r, err = open(ctx, o, buildRequest("build:cpu", "cpu"))
	if r == nil || r.Backend != "rocm" {
		t.Errorf("the build's selection ignored MLXBUILD_BACKENDS=rocm: %v", err)
	}
	r.close()
	if locked(layout) {
		t.Error("the cpu cache is locked once rocm was chosen")
	}
	r, err = open(ctx, o, request{target: "overlay:apply", backend: "cpu", exact: true, lock: true})
	if err != nil || r.Backend != "cpu" || r.Kind == nil || r.Kind.Name != "cpu" {
		t.Fatalf("apply's run: %v", err)
	}
	if !locked(layout) {
		t.Error("apply's run does not hold the lock")
	}
	r.close()
}

// TestBuildLocksOnlyTheNamedCache: the project file names its cache, and
// another mlxbuild holds the lock of a configured build at the default
// place (target/mlxbuild beside the file). The build locks the named cache
// alone: it neither waits for the other lock nor takes it.
func TestBuildLocksOnlyTheNamedCache(t *testing.T) {
	dir := t.TempDir()
	named := filepath.Join(dir, "named")
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), "project(mlx CXX)\n")
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: "+named+"\n")
	env := map[string]string{"PATH": os.Getenv("PATH"), "HOME": os.Getenv("HOME"), "NO_COLOR": "1"}
	var said bytes.Buffer
	o := Options{Dir: dir, Env: func(k string) string { return env[k] }, GOOS: "linux", Stdout: &said, Stderr: &said}
	other := cache.For(filepath.Join(dir, "target", "mlxbuild"), "cpu")
	if err := cache.Prepare(other, dir); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(other.Build, "build.ninja"), "rule cp\n  command = cp $in $out\nbuild out: cp in\n")
	unlock, err := cache.Lock(context.Background(), other.Lock, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := open(ctx, o, buildRequest("build:cpu", "cpu"))
	defer r.close()
	if err != nil {
		t.Fatalf("open: %v\n%s", err, said.String())
	}
	if r.lock.dir != cache.For(named, "cpu").Dir || strings.Contains(said.String(), "waiting for") {
		t.Errorf("the run locked %q; it said:\n%s", r.lock.dir, said.String())
	}
}
