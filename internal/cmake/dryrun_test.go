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

// TestDryRunAnswersAsNinja runs real Ninja: the dry run reports work while
// the output is missing or older than its input, and runs none of it
// (nothing is written); it reports no work once Ninja built it; the log it
// writes is the command and Ninja's own lines.
func TestDryRunAnswersAsNinja(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	out := filepath.Join(dir, "out")
	if StartDryRun(context.Background(), dir, "").NoWork() {
		t.Fatal("no work reported before the first build")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("the dry run ran its edge: %v", err)
	}
	if _, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(dir, "log")}); err != nil {
		t.Fatal(err)
	}
	d := StartDryRun(context.Background(), dir, "")
	if !d.NoWork() {
		t.Fatalf("work reported after a build; Ninja said:\n%s", d.out)
	}
	log := filepath.Join(dir, "dry.log")
	if err := d.WriteLog(log); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, log)
	if !strings.HasPrefix(got, "# ") || !strings.Contains(got, " -n -C "+dir+"\n") || !strings.HasSuffix(got, "ninja: no work to do.\n") {
		t.Errorf("dry-run log:\n%s", got)
	}
	// An input newer than the output, mtime forward by a second.
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, "in"), later, later); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, out)
	if StartDryRun(context.Background(), dir, "").NoWork() {
		t.Error("no work reported with an input newer than its output")
	}
	if readFile(t, out) != before {
		t.Error("the dry run rewrote the output")
	}
}

// TestDryRunWithoutBuildFile: before the first configure there is nothing
// to ask; a nil dry run reports work and stops at once.
func TestDryRunWithoutBuildFile(t *testing.T) {
	d := StartDryRun(context.Background(), t.TempDir(), "")
	if d != nil {
		t.Fatalf("a dry run started without build.ninja: %+v", d)
	}
	if d.NoWork() {
		t.Error("a nil dry run reported no work")
	}
	d.Stop()
}

// TestDryRunStop: a stopped dry run reports work, whatever it had found.
func TestDryRunStop(t *testing.T) {
	testutil.NeedTools(t, "ninja", "cp")
	dir := copyNinja(t)
	if _, err := Build(context.Background(), BuildOptions{Dir: dir, LogPath: filepath.Join(dir, "log")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := StartDryRun(ctx, dir, "")
	d.Stop()
	if d.NoWork() {
		t.Error("a dry run stopped before it ran reported no work")
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
