package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestDeclaredFollowsTree checks the record of the tree's FetchContent
// declarations through real builds: a no-op build reuses it, and editing
// the source so that the tree declares a dependency no provider has (or no
// longer declares it) is seen by the very next build. The record is keyed
// by the tree's manifest, which Materialize rewrites with the edit.
func TestDeclaredFollowsTree(t *testing.T) {
	app := newCPUApp(t, "backends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	cml := filepath.Join(app, "src", "CMakeLists.txt")
	plain := plainCMake
	declaring := plain + "if(WANT_TINY)\n  FetchContent_Declare(tiny URL http://127.0.0.1:9/tiny.tar.gz)\nendif()\n"
	testutil.WriteFile(t, filepath.Join(app, "cpu.yaml"), "dependencies:\n  - name: tiny\n    url: http://127.0.0.1:9/tiny.tar.gz\n    sha256: \""+strings.Repeat("a", 64)+"\"\n    providers: [cache]\n")
	ctx := context.Background()
	o := flow.Options{Dir: app, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	record := filepath.Join(app, "..", "cache", "cpu", "tree.declared")

	if _, err := flow.Build(ctx, o, "cpu"); err != nil {
		t.Fatalf("a tree that declares nothing needs no tiny: %v", err)
	}
	if _, err := os.ReadFile(record); err != nil {
		t.Fatalf("the build recorded no declarations: %v", err)
	}
	// The first no-op keeps the listings of the tree's directories, which
	// the cold build wrote (too recent to keep then): its manifest, and so
	// the record, is written once more.
	if sum, err := flow.Build(ctx, o, "cpu"); err != nil || !sumIsNoop(sum) {
		t.Fatalf("second build is not a no-op: %+v, %v", sum, err)
	}
	first, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := flow.Build(ctx, o, "cpu"); err != nil || !sumIsNoop(sum) {
		t.Fatalf("third build is not a no-op: %+v, %v", sum, err)
	}
	if again, _ := os.ReadFile(record); string(again) != string(first) {
		t.Errorf("a no-op rewrote the record:\n%s\nthen\n%s", first, again)
	}

	testutil.WriteFile(t, cml, declaring)
	_, err = flow.Build(ctx, o, "cpu")
	if err == nil || !strings.Contains(err.Error(), "tiny") || !strings.Contains(err.Error(), "no provider has") {
		t.Fatalf("the tree now declares tiny, which no provider has: want that error, got %v", err)
	}
	if rec, _ := os.ReadFile(record); !strings.Contains(string(rec), "\nset \"name\" \"tiny\"\n") {
		t.Errorf("the record does not hold tiny:\n%s", rec)
	}

	testutil.WriteFile(t, cml, plain)
	if _, err := flow.Build(ctx, o, "cpu"); err != nil {
		t.Fatalf("the declaration is gone again: %v", err)
	}
}
