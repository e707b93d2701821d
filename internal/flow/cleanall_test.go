package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCleanRemovesEverythingABuildWrote builds every backend this machine
// can with the stand-in example (cpu from two overlay layers, rocm with the
// example's spec, its dependency seeded from the mirror, plan and
// verify:rocm too), lists every entry written under the cache, and cleans:
// cache:clean -backend=rocm, then the whole cache with -deps=true, must
// remove exactly what was written (each backend's lock file stays, see
// cache.Lock) and keep, and name, the two files the test put there
// itself. A build that writes an entry cache:clean does not know fails it:
// the entry is left behind and named as not mlxbuild's on every clean.
func TestCleanRemovesEverythingABuildWrote(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++", "hipcc")
	spec, err := os.ReadFile(filepath.Join(examplesDir, "minimlx", "rocm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p := newProject(t, string(spec))
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "deps"), filepath.Join(p.Dir, "deps"))
	const layered = "mlx/backend/cpu/binary.cpp"
	data, err := os.ReadFile(filepath.Join(p.Mlx, layered))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(p.Dir, "patches-cpu", layered), string(data))
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"deps_mirror: deps\n"+
		"backends:\n  cpu:\n    layers:\n      - {dir: patches-cpu}\n"+
		"  rocm:\n    overlay: patches-rocm\n    spec: rocm.yaml\n    merge: extend\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	ctx := context.Background()
	var stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}
	for _, b := range []string{"cpu", "rocm"} {
		if _, err := flow.Build(ctx, o, b); err != nil {
			t.Fatalf("build:%s: %v\n%s", b, err, stderr.String())
		}
	}
	if err := flow.Plan(ctx, o, "plan:rocm", "rocm"); err != nil {
		t.Fatalf("plan:rocm: %v", err)
	}
	_, _ = flow.Verify(ctx, o, "rocm") // its verdict is not this test's; what it writes is

	// What mlxbuild wrote, and what the user put beside it.
	written := cacheEntries(t, p.Cache)
	t.Logf("written under the cache:\n  %s", strings.Join(written, "\n  "))
	theirs := []string{"notes.txt", "rocm/my-notes.txt"}
	for _, rel := range theirs {
		testutil.WriteFile(t, filepath.Join(p.Cache, rel), "the user's\n")
	}
	for _, rel := range []string{"rocm/mlxbuild-launch", "rocm/launch.cmake", "discovery", "cpu/overlay"} {
		if !slices.Contains(written, rel) {
			t.Errorf("the builds wrote no %s: this test no longer sees what it checks", rel)
		}
	}
	// kept is what clean leaves: the root's tag, the locks it cleaned
	// under, and the user's files.
	kept := func(rel string, backends ...string) bool {
		if rel == "CACHEDIR.TAG" || slices.Contains(theirs, rel) {
			return true
		}
		for _, b := range backends {
			if rel == b+"/lock" || rel == b {
				return true
			}
		}
		return false
	}

	// -backend=rocm: only rocm's part goes; the user's file in it stays.
	stderr.Reset()
	if err := flow.Clean(o, "rocm", false); err != nil {
		t.Fatal(err)
	}
	if want := "warning: left " + filepath.Join(p.Cache, "rocm", "my-notes.txt") + ": mlxbuild did not make it; remove it by hand if it is not needed\n"; stderr.String() != want {
		t.Errorf("cache:clean -backend=rocm warned:\n%swant only:\n%s", stderr.String(), want)
	}
	after := cacheEntries(t, p.Cache)
	for _, rel := range written {
		inRocm := rel == "rocm" || strings.HasPrefix(rel, "rocm/")
		if present := slices.Contains(after, rel); present == (inRocm && !kept(rel, "rocm")) {
			t.Errorf("after cache:clean -backend=rocm, %s present = %v", rel, present)
		}
	}

	// The whole cache: everything written goes but the tag, the locks and
	// the user's files, which are named.
	stderr.Reset()
	if err := flow.Clean(o, "", true); err != nil {
		t.Fatal(err)
	}
	warned := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	wantWarned := []string{
		"warning: left " + filepath.Join(p.Cache, "rocm", "my-notes.txt") + ": mlxbuild did not make it; remove it by hand if it is not needed",
		"warning: left " + filepath.Join(p.Cache, "notes.txt") + ": mlxbuild did not make it; remove it by hand if it is not needed",
	}
	if !slices.Equal(warned, wantWarned) {
		t.Errorf("cache:clean -deps=true warned:\n  %s\nwant:\n  %s", strings.Join(warned, "\n  "), strings.Join(wantWarned, "\n  "))
	}
	after = cacheEntries(t, p.Cache)
	var want []string
	for _, rel := range append(written, theirs...) {
		if kept(rel, "cpu", "rocm") {
			want = append(want, rel)
		}
	}
	slices.Sort(want)
	if !slices.Equal(after, want) {
		t.Errorf("after cache:clean -deps=true the cache holds:\n  %s\nwant:\n  %s", strings.Join(after, "\n  "), strings.Join(want, "\n  "))
	}
}

// cacheEntries lists the cache root's entries and those of its backends'
// directories (what cache:clean decides on), as slash paths relative to
// root, sorted.
func cacheEntries(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range top {
		out = append(out, e.Name())
		if !slices.Contains([]string{"cpu", "rocm", "cuda", "metal"}, e.Name()) {
			continue
		}
		inner, err := os.ReadDir(filepath.Join(root, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range inner {
			out = append(out, e.Name()+"/"+f.Name())
		}
	}
	slices.Sort(out)
	return out
}
