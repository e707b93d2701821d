package flow_test

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// TestNoopOverlayHashes: a build takes the stamp's overlay hashes from what
// materializing checked instead of reading the overlay again, so after every
// build they must equal a fresh read of the overlay; and an overlay file
// edited in place with its size and mtime restored is still a change that
// rebuilds (its ctime moved), never a no-op.
func TestNoopOverlayHashes(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	const rel = "mlx/backend/cpu/binary.cpp"
	overlay := filepath.Join(p.Dir, "patches-cpu")
	src, err := os.ReadFile(filepath.Join(p.Mlx, rel))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(overlay, rel)
	testutil.WriteFile(t, file, string(src)+"// cpu overlay: a\n")
	yaml, _ := os.ReadFile(filepath.Join(p.Dir, "mlxbuild.yaml"))
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), string(yaml)+"  cpu:\n    overlay: patches-cpu\n")

	build := func(t *testing.T) *flow.Summary {
		t.Helper()
		var stderr bytes.Buffer
		sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
		if err != nil {
			t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
		}
		stamp, err := cache.ReadStamp(filepath.Join(p.Cache, "cpu", "stamp.json"))
		if err != nil || stamp == nil {
			t.Fatalf("reading the stamp: %v", err)
		}
		fresh, err := overlays.OverlayFiles(overlay, nil)
		if err != nil {
			t.Fatal(err)
		}
		stamped := map[string]string{}
		for k, v := range stamp.Inputs {
			if after, ok := strings.CutPrefix(k, "overlay:"); ok { // the stamp's per-file overlay inputs
				stamped[after] = v
			}
		}
		if len(fresh) != 1 || !maps.Equal(stamped, fresh) {
			t.Errorf("the stamp's overlay hashes %v, a fresh read %v", stamped, fresh)
		}
		return sum
	}

	if sum := build(t); sum.Steps == 0 {
		t.Fatalf("first build ran nothing: %+v", sum)
	}
	if sum := build(t); sum.Steps != 0 || len(sum.Why) != 0 || sum.Reconfigured {
		t.Fatalf("second build is not a no-op: %+v", sum)
	}
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace([]byte(string(src)+"// cpu overlay: a\n"), []byte("overlay: a"), []byte("overlay: b"), 1)
	if err := os.WriteFile(file, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(file); after.Size() != info.Size() || !after.ModTime().Equal(info.ModTime()) {
		t.Fatalf("the edit did not keep size and mtime: %v %v", after.Size(), after.ModTime())
	}
	sum := build(t)
	if sum.Steps == 0 || !slices.Contains(sum.Why, "overlay: "+rel+" changed") {
		t.Errorf("an in-place edit that kept size and mtime: %+v", sum)
	}
	tree, _ := os.ReadFile(filepath.Join(p.Cache, "cpu", "tree", rel))
	if !bytes.Equal(tree, edited) {
		t.Error("the tree does not hold the edited file")
	}
}
