package cmake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// copyNinja writes a Ninja project with one edge that copies in to out.
func copyNinja(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), "rule cp\n  command = cp $in $out\nbuild out: cp in\n")
	testutil.WriteFile(t, filepath.Join(dir, "in"), "one\n")
	return dir
}

// TestBuildSaysNoWorkOnlyWhenNinjaHadNone runs real Ninja: a build that
// ran an edge, the first or after an input became newer than its output,
// is not a no-work build; the one between them is.
func TestBuildSaysNoWorkOnlyWhenNinjaHadNone(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	build := func() BuildResult {
		t.Helper()
		res, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(dir, "log")})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := build(); res.NoWork || res.Steps != 1 {
		t.Fatalf("the first build: no work %v, %d steps", res.NoWork, res.Steps)
	}
	if res := build(); !res.NoWork || res.Steps != 0 {
		t.Fatalf("the second build: no work %v, %d steps; log:\n%s", res.NoWork, res.Steps, readFile(t, filepath.Join(dir, "log")))
	}
	// An input newer than the output, mtime forward by a second.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, "in"), later, later); err != nil {
		t.Fatal(err)
	}
	if res := build(); res.NoWork || res.Steps != 1 {
		t.Errorf("with an input newer than its output: no work %v, %d steps", res.NoWork, res.Steps)
	}
}

// TestOrderedNoOpLeavesTheBuildDirectory: a build with known durations
// reads an ordered copy of build.ninja; a second one with nothing to do
// leaves that copy, and so the build directory, as they were: a record
// judges absent nodes there by the directory's ctime (olderThan), so a
// copy written again would void every record a no-op makes.
func TestOrderedNoOpLeavesTheBuildDirectory(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	opts := BuildOptions{Dir: dir, LogPath: filepath.Join(t.TempDir(), "log"), Durations: Durations{"out": time.Second}}
	if res, err := Build(context.Background(), opts); err != nil || !res.Ordered {
		t.Fatalf("the first build: ordered %v, %v", res.Ordered, err)
	}
	before := lookAt(dir)
	time.Sleep(20 * time.Millisecond) // past the clock tick of the first build
	res, err := Build(context.Background(), opts)
	if err != nil || !res.Ordered || !res.NoWork {
		t.Fatalf("the second build: ordered %v, no work %v, %v", res.Ordered, res.NoWork, err)
	}
	if after := lookAt(dir); after != before {
		t.Errorf("the no-op changed the build directory: %+v, then %+v", before.id, after.id)
	}
}

// TestNoWorkCheckWithoutBuildFile: before the first configure there is
// nothing to ask; a nil check answers nothing and remembers nothing.
func TestNoWorkCheckWithoutBuildFile(t *testing.T) {
	dir := t.TempDir()
	c := CheckNoWork(dir)
	if c != nil {
		t.Fatalf("a check started without build.ninja: %+v", c)
	}
	if c.Recorded() != 0 {
		t.Error("a nil check answered")
	}
	if err := c.Remember(context.Background(), BuildResult{NoWork: true}, lockNow(t)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, noWorkRecordFile)); !os.IsNotExist(err) {
		t.Errorf("a nil check wrote a record: %v", err)
	}
}

// TestNoWorkCheckWritesTheLog: a no-op the record answered leaves a build
// log that says so, in Ninja's words, and that the next one leaves alone.
func TestNoWorkCheckWritesTheLog(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp", "sh")
	dir := headerNinja(t)
	remembered(t, dir)
	c := CheckNoWork(dir)
	if c.Recorded() == 0 {
		t.Fatal("the record did not answer")
	}
	log := filepath.Join(t.TempDir(), "sub", "build.log")
	if err := c.WriteLog(log); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, log)
	if !strings.HasPrefix(got, "# "+filepath.Join(dir, noWorkRecordFile)+": no file Ninja reads changed (") || !strings.Contains(got, " -C "+dir+"` found no work\n") || !strings.HasSuffix(got, "\nninja: no work to do.\n") {
		t.Errorf("the log:\n%s", got)
	}
	st, _ := os.Stat(log)
	time.Sleep(20 * time.Millisecond)
	if err := c.WriteLog(log); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(log); !again.ModTime().Equal(st.ModTime()) {
		t.Error("the same log was written again")
	}
}

// TestSaidNoWork holds the reading of Ninja's output to real shapes.
func TestSaidNoWork(t *testing.T) {
	for _, c := range []struct {
		out  string
		want bool
	}{
		{"ninja: Entering directory `/c/rocm/build'\nninja: no work to do.\n", true},
		{"ninja: no work to do.\n", true},
		{"ninja: Entering directory `build'\n[0/1] Re-running CMake...\n", false},
		{"ninja: Entering directory `b'\n[1/4] HIP mlx/backend/rocm/binary.hip\n[2/4] LINK libmlx.a\n", false},
		{"ninja: warning: multiple rules generate x\nninja: no work to do.\n", false},
		{"ninja: no work to do.\nninja: no work to do.\n", false},
		{"ninja: error: loading 'build.ninja': No such file or directory\n", false},
		{"", false},
		{"ninja: Entering directory `b'\n", false},
	} {
		if got := saidNoWork(c.out); got != c.want {
			t.Errorf("saidNoWork(%q) = %v, want %v", c.out, got, c.want)
		}
	}
}

// FuzzSaidNoWork: the reading never panics, and says no work only when
// Ninja said so.
func FuzzSaidNoWork(f *testing.F) {
	f.Add("ninja: Entering directory `/c/rocm/build'\nninja: no work to do.\n")
	f.Add("ninja: Entering directory `build'\n[0/1] Re-running CMake...\n")
	f.Fuzz(func(t *testing.T, out string) {
		if saidNoWork(out) && !strings.Contains(out, "ninja: no work to do.") {
			t.Errorf("no work read from %q", out)
		}
	})
}
