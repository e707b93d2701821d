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

// TestNoWorkAsksNinjaAsNinja runs real Ninja with no record: `ninja -n`
// reports work while the output is missing or older than its input, and
// runs none of it (nothing is written); it reports no work once Ninja
// built it; the log it writes is the command and Ninja's own lines.
func TestNoWorkAsksNinjaAsNinja(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	out := filepath.Join(dir, "out")
	if CheckNoWork(dir).NoWork(context.Background()) {
		t.Fatal("no work reported before the first build")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("ninja -n ran its edge: %v", err)
	}
	if _, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(dir, "log")}); err != nil {
		t.Fatal(err)
	}
	c := CheckNoWork(dir)
	if !c.NoWork(context.Background()) || c.Recorded() != 0 {
		t.Fatalf("work reported after a build (recorded %d); Ninja said:\n%s", c.Recorded(), c.out)
	}
	log := filepath.Join(dir, "dry.log")
	if err := c.WriteLog(log); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, log)
	if !strings.HasPrefix(got, "# ") || !strings.Contains(got, " -n -C "+dir+"\n") || !strings.HasSuffix(got, "ninja: no work to do.\n") {
		t.Errorf("the log:\n%s", got)
	}
	// An input newer than the output, mtime forward by a second.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, "in"), later, later); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, out)
	if CheckNoWork(dir).NoWork(context.Background()) {
		t.Error("no work reported with an input newer than its output")
	}
	if readFile(t, out) != before {
		t.Error("ninja -n rewrote the output")
	}
}

// TestNoWorkCheckWithoutBuildFile: before the first configure there is
// nothing to ask; a nil check reports work and remembers nothing.
func TestNoWorkCheckWithoutBuildFile(t *testing.T) {
	dir := t.TempDir()
	c := CheckNoWork(dir)
	if c != nil {
		t.Fatalf("a check started without build.ninja: %+v", c)
	}
	if c.Recorded() != 0 || c.NoWork(context.Background()) {
		t.Error("a nil check reported no work")
	}
	if err := c.Remember(context.Background(), lockNow(t)); err != nil {
		t.Error(err)
	}
}

// TestNoWorkStopped: ninja -n stopped by its context reports work,
// whatever it would have found.
func TestNoWorkStopped(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	if _, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(dir, "log")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if CheckNoWork(dir).NoWork(ctx) {
		t.Error("ninja -n stopped before it ran reported no work")
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
	if !strings.HasPrefix(got, "# "+filepath.Join(dir, noWorkRecordFile)+": no file Ninja reads changed (") || !strings.Contains(got, " -n -C "+dir+"` found no work\n") || !strings.HasSuffix(got, "\nninja: no work to do.\n") {
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

// TestDryRunNoWork holds the reading of `ninja -n` output to real shapes.
func TestDryRunNoWork(t *testing.T) {
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
		if got := dryRunNoWork([]byte(c.out)); got != c.want {
			t.Errorf("dryRunNoWork(%q) = %v, want %v", c.out, got, c.want)
		}
	}
}

// FuzzDryRunNoWork: the reading never panics, and says no work only when
// Ninja said so.
func FuzzDryRunNoWork(f *testing.F) {
	f.Add([]byte("ninja: Entering directory `/c/rocm/build'\nninja: no work to do.\n"))
	f.Add([]byte("ninja: Entering directory `build'\n[0/1] Re-running CMake...\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		if dryRunNoWork(out) && !strings.Contains(string(out), "ninja: no work to do.") {
			t.Errorf("no work read from %q", out)
		}
	})
}
