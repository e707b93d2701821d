package configs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// resolveByEvalSymlinks is resolve as it was: EvalSymlinks of the longest
// existing prefix, the rest kept.
func resolveByEvalSymlinks(path string) string {
	rest := ""
	for p := path; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// TestResolverAsEvalSymlinks: one resolver, asked about many paths in turn
// (so later ones reuse the folders earlier ones resolved), gives for each
// what EvalSymlinks of its existing part gives: through an absolute link, a
// relative link with "..", a chain of links, a link to a file, a dangling
// link, a loop, a path under a file, paths that do not exist yet, a
// relative path, and paths that are not clean (a trailing slash, a ".."
// after a link).
func TestResolverAsEvalSymlinks(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/project/target")
	mk("real/other/deep")
	if err := os.WriteFile(filepath.Join(dir, "real/file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln(filepath.Join(dir, "real"), "abs")
	ln("real/other/deep/../../project", "rel")
	ln("rel", "chain")
	ln("real/file", "tofile")
	ln("nowhere", "dangling")
	ln("loop", "loop")
	paths := []string{
		"real/project/target", "abs/project/target/mlxbuild", "rel/target", "chain/target/x/y",
		"tofile", "tofile/under", "real/file/under", "dangling", "dangling/x", "loop/x",
		"abs/other/deep", "abs/project", "nothing/here", "abs/", "rel/../other", "abs/project/../other/deep/",
	}
	res := resolver{}
	for _, p := range paths {
		abs := dir + "/" + p // as written: some are not clean
		if got, want := res.resolve(abs), resolveByEvalSymlinks(abs); got != want {
			t.Errorf("%s: resolver %s, EvalSymlinks %s", abs, got, want)
		}
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	for _, p := range []string{"rel/target", "chain", "nothing/here", "."} {
		if got, want := (resolver{}).resolve(p), resolveByEvalSymlinks(p); got != want {
			t.Errorf("relative %s: resolver %s, EvalSymlinks %s", p, got, want)
		}
	}
}

// BenchmarkResolveCacheRootPaths resolves, in one loop, the paths the
// cache root check resolves for a project shaped like the reference user's
// (the cache, the project, the source, two overlays, two specs, the home
// directory and its .cache) both ways: with one resolver per check, and by
// EvalSymlinks each. Reported: each one's µs/op and resolver/each.
//
//	go test ./configs -run '^$' -bench ResolveCacheRootPaths -count 3
func BenchmarkResolveCacheRootPaths(b *testing.B) {
	root := b.TempDir()
	project := filepath.Join(root, "home", "dev", "src", "engine")
	rel := []string{"target/mlxbuild", ".", "target/mlxbuild/src/mlx", "src/lib/mlx-cpp/patches-rocm", "src/lib/mlx-cpp/patches-cuda",
		"src/lib/mlx-cpp/rocm.yaml", "src/lib/mlx-cpp/cuda.yaml", "../../..", "../../../.cache"}
	var paths []string
	for _, r := range rel {
		p := filepath.Join(project, r)
		if err := os.MkdirAll(p, 0o755); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	var shared, each time.Duration
	for i := 0; i < b.N; i++ {
		t := time.Now()
		res := resolver{}
		for _, p := range paths {
			if res.resolve(p) != p {
				b.Fatalf("%s resolved elsewhere", p)
			}
		}
		shared += time.Since(t)
		t = time.Now()
		for _, p := range paths {
			if resolveByEvalSymlinks(p) != p {
				b.Fatalf("%s resolved elsewhere", p)
			}
		}
		each += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(shared.Nanoseconds())/1000/n, "resolver-µs/op")
	b.ReportMetric(float64(each.Nanoseconds())/1000/n, "evalsymlinks-µs/op")
	b.ReportMetric(float64(shared)/float64(each), "resolver/each")
}
