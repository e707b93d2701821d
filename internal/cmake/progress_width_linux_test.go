package cmake

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/pty"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestTTYLineFitsARealTerminal: on a real terminal (a pseudo-terminal of
// 57 columns; BuildOptions.Width left 0, so only the terminal can say) every
// line fits in 56 columns, and after the window shrinks to 40 while an
// edge runs, the next line fits in 39.
func TestTTYLineFitsARealTerminal(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sh")
	master, slave, err := pty.Open(57, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	seen := &fakeTTY{} // what the terminal received, read as it arrives
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(seen, master) // until EIO: the slave closed
		close(copied)
	}()
	dir := slowNinja(t, strings.Repeat("very/long/directory/", 12)+"CMakeFiles/k.dir/unary.hip")
	done := make(chan error, 1)
	go func() {
		_, err := Build(context.Background(), BuildOptions{Dir: dir, Jobs: 1, Progress: slave, TTY: true})
		done <- err
	}()
	waitFor(t, "the line to name the slow edge", func() bool { return strings.Contains(seen.now(), "unary.hip") })
	if err := pty.Resize(slave, 40, 24); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(dir, "release"), "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	slave.Close()
	<-copied
	lines := seen.lines()
	wide := 0
	for _, l := range lines {
		if len(l) > 56 {
			t.Errorf("line %q (%d bytes) on a terminal of 57 columns", l, len(l))
		}
		if len(l) > 39 {
			wide++
		}
	}
	last := lines[len(lines)-1]
	if wide == 0 || len(last) > 39 || !strings.HasSuffix(last, "/unary.hip") {
		t.Errorf("after the resize to 40 columns the line is %q (%d bytes); lines %q", last, len(last), lines)
	}
}
