package flow_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	build := func() (*flow.Summary, string, string) { t.Helper(); return buildCPULogged(t, p.Dir) }
	build()
	sum, log, out := build()
	if sum.Steps != 0 || sum.Reconfigured || !strings.Contains(log, " -n -C ") || !strings.Contains(log, "ninja: no work to do.") {
		t.Fatalf("second build: %+v; log:\n%s", sum, log)
	}
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "cpu is up to date") {
		t.Errorf("a no-op said more than one line:\n%s", out)
	}

	object := anObject(t, filepath.Join(p.Cache, "cpu", "build"))
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

// TestNoopFollowsTheChosenBackend: build:cpu's cache is configured, but a
// Cargo feature chooses rocm: that cache is built, a rocm object removed
// is rebuilt (cpu's Ninja and record, which have no work, must not answer
// for rocm), a no-op follows, and the cpu cache is left as it was.
func TestNoopFollowsTheChosenBackend(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++", "hipcc")
	// Debian lacks these; the example's build does not link them.
	p := newProject(t, "link:\n  remove: [hipfft, rocblas, hipblaslt]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	run := func() *flow.Summary { t.Helper(); return buildCPU(t, p.Dir) }
	run()
	cpuLog, err := os.ReadFile(filepath.Join(p.Cache, "cpu", "build.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CARGO_FEATURE_ROCM", "1")
	if sum := run(); sum.Backend != "rocm" || sum.Steps == 0 {
		t.Fatalf("with CARGO_FEATURE_ROCM: %+v", sum)
	}
	// Only rocm's Ninja can tell this object is gone; cpu's has no work.
	if err := os.Remove(filepath.Join(p.Cache, "rocm", "build", hipObject)); err != nil {
		t.Fatal(err)
	}
	if sum := run(); sum.Backend != "rocm" || sum.Steps == 0 {
		t.Errorf("with a rocm object gone: %+v", sum)
	}
	if sum := run(); sum.Backend != "rocm" || sum.Steps != 0 || sum.Reconfigured {
		t.Errorf("again: %+v", sum)
	}
	if again, _ := os.ReadFile(filepath.Join(p.Cache, "cpu", "build.log")); !bytes.Equal(again, cpuLog) {
		t.Errorf("the cpu build log changed while rocm was built:\n%s", again)
	}
}

// TestNoopAsksTheNamedCache: with MLXBUILD_CACHE unset the project file
// names another cache than the default, target/mlxbuild beside it, where
// a configured decoy sits: its Ninja and record (no work) must not answer
// for the named cache, whose removed object is rebuilt; the decoy is left
// as it was.
func TestNoopAsksTheNamedCache(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	t.Setenv("MLXBUILD_CACHE", "")
	named := filepath.Join(t.TempDir(), "named-cache")
	yaml, err := os.ReadFile(filepath.Join(p.Dir, "mlxbuild.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), string(yaml)+"cache: "+named+"\n")
	run := func() *flow.Summary { t.Helper(); return buildCPU(t, p.Dir) }
	run()
	// The decoy: the same build, copied to the default place.
	decoy := filepath.Join(p.Dir, "target", "mlxbuild")
	if err := os.MkdirAll(filepath.Dir(decoy), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.RunOK(t, nil, "", "cp", "-a", named, decoy)
	decoyLog, err := os.ReadFile(filepath.Join(decoy, "cpu", "build.log"))
	if err != nil {
		t.Fatal(err)
	}
	if sum := run(); sum.Steps != 0 || sum.Reconfigured {
		t.Fatalf("second build: %+v", sum)
	}
	object := anObject(t, filepath.Join(named, "cpu", "build"))
	if err := os.Remove(object); err != nil {
		t.Fatal(err)
	}
	if sum := run(); sum.Steps == 0 || !strings.HasPrefix(sum.LogPath, named) {
		t.Errorf("with %s gone: %+v", object, sum)
	}
	if again, _ := os.ReadFile(filepath.Join(decoy, "cpu", "build.log")); !bytes.Equal(again, decoyLog) {
		t.Errorf("the decoy's build log changed:\n%s", again)
	}
}

// anObject is the first object file under a build directory.
func anObject(t *testing.T, build string) string {
	t.Helper()
	var object string
	_ = filepath.WalkDir(build, func(path string, d fs.DirEntry, err error) error {
		if err == nil && object == "" && strings.HasSuffix(path, ".o") {
			object = path
		}
		return err
	})
	if object == "" {
		t.Fatalf("%s has no object file", build)
	}
	return object
}

// buildCPU runs build:cpu of the project in dir and fails the test with
// its output when it fails.
func buildCPU(t *testing.T, dir string) *flow.Summary {
	t.Helper()
	var stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: dir, Stdout: &stderr, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	return sum
}

// TestNoopSkipsNinjaWhileNothingItReadsChanged builds the example for the
// CPU with real CMake and Ninja. After a no-op that asked Ninja, the next
// no-ops are answered by the no-work record (the log says so) and still say
// one line; then a header only Ninja knows of (CMake's generated config
// header, from the deps log) made newer, or an object removed, is rebuilt:
// the record must not answer for either.
func TestNoopSkipsNinjaWhileNothingItReadsChanged(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	build := func() (*flow.Summary, string, string) { t.Helper(); return buildCPULogged(t, p.Dir) }
	const recorded = "no file Ninja reads changed"
	// Until the record is made: files written within the clock tick
	// before a dry run are too recent to record.
	untilRecorded := func(what string) {
		t.Helper()
		for try := 0; ; try++ {
			sum, log, out := build()
			if sum.Steps != 0 || strings.Count(out, "\n") != 1 {
				t.Fatalf("%s: a no-op ran %d steps or said more than one line:\n%s", what, sum.Steps, out)
			}
			if strings.Contains(log, recorded) {
				return
			}
			if try == 20 {
				t.Fatalf("%s: no no-op was answered by the record; last log:\n%s", what, log)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	build()
	untilRecorded("after the first build")

	header := filepath.Join(p.Cache, "cpu", "build", "generated", "mlx", "build_config.h")
	// Newer than every object, and not in the future (which would keep
	// it newer than the objects rebuilt from it).
	now := time.Now()
	if err := os.Chtimes(header, now, now); err != nil {
		t.Fatal(err)
	}
	if sum, log, _ := build(); sum.Steps == 0 || strings.Contains(log, recorded) {
		t.Errorf("with %s newer, nothing was rebuilt: %+v\n%s", header, sum, log)
	}
	untilRecorded("after the header")

	object := anObject(t, filepath.Join(p.Cache, "cpu", "build"))
	if err := os.Remove(object); err != nil {
		t.Fatal(err)
	}
	if sum, _, _ := build(); sum.Steps == 0 {
		t.Errorf("with %s gone, nothing was rebuilt", object)
	}
	if _, err := os.Stat(object); err != nil {
		t.Errorf("the build did not make %s again: %v", object, err)
	}
}

// buildCPULogged is buildCPU that also returns the build's log and what it
// said.
func buildCPULogged(t *testing.T, dir string) (*flow.Summary, string, string) {
	t.Helper()
	var stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: dir, Stdout: &stderr, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	log, err := os.ReadFile(sum.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return sum, string(log), stderr.String()
}
