package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestTouchedOverlayFileIsExplained: a bare touch of an overlay file
// changes none of mlxbuild's inputs, but the build passes it on to the
// tree and Ninja recompiles the file. plan says so, and why, instead of
// "nothing in mlxbuild's inputs changed"; the build's done block says why
// Ninja ran; afterwards plan has nothing to say again.
func TestTouchedOverlayFileIsExplained(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	const rel = "mlx/backend/cpu/binary.cpp"
	data, err := os.ReadFile(filepath.Join(p.Mlx, rel))
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(p.Dir, "patches-cpu", rel)
	testutil.WriteFile(t, overlayFile, string(data))
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  cpu:\n    overlay: patches-cpu\n")
	ctx := context.Background()
	o := func(stdout, stderr *bytes.Buffer) flow.Options {
		return flow.Options{Dir: p.Dir, Stdout: stdout, Stderr: stderr}
	}
	plan := func(t *testing.T) string {
		t.Helper()
		var stdout bytes.Buffer
		if err := flow.Plan(ctx, o(&stdout, &bytes.Buffer{}), "plan:cpu", "cpu"); err != nil {
			t.Fatal(err)
		}
		return stdout.String()
	}
	var stderr bytes.Buffer
	if _, err := flow.Build(ctx, o(&bytes.Buffer{}, &stderr), "cpu"); err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	const quiet = "would redo: nothing in mlxbuild's inputs changed; Ninja would check the tree's files\n"
	if got := plan(t); !strings.HasSuffix(got, quiet) {
		t.Fatalf("plan:cpu after the build ends:\n%s\nwant %q", lastLines(got, 2), quiet)
	}

	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(overlayFile, later, later); err != nil {
		t.Fatal(err)
	}
	want := "would redo: Ninja's build only (nothing in mlxbuild's inputs changed), because:\n" +
		"  - Ninja will recompile " + rel + " (or what includes it): it was touched, same content, so its tree copy will be newer than its object\n"
	if got := plan(t); !strings.HasSuffix(got, want) {
		t.Errorf("plan:cpu after a touch ends:\n%s\nwant:\n%s", lastLines(got, 3), want)
	}

	stderr.Reset()
	sum, err := flow.Build(ctx, o(&bytes.Buffer{}, &stderr), "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	because := "    because Ninja recompiled " + rel + " (or what includes it): it was touched, same content, so its tree copy was newer than its object\n"
	if sum.Steps == 0 || !strings.Contains(stderr.String(), "done: cpu built\n"+because) {
		t.Errorf("the build after a touch (%d steps) printed:\n%s\nwant its done block to start:\ndone: cpu built\n%s", sum.Steps, stderr.String(), because)
	}
	if got := plan(t); !strings.HasSuffix(got, quiet) {
		t.Errorf("plan:cpu after the touch was built ends:\n%s\nwant %q", lastLines(got, 2), quiet)
	}
}
