package compilecache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBaseDirSharesBetweenCheckouts compiles the same file in two
// directories the way CMake's Ninja generator does (absolute source and
// include paths, run from the build directory) with one cache: with Setup's
// environment the second checkout hits; without its base directory it
// misses, which is why Setup sets it.
func TestBaseDirSharesBetweenCheckouts(t *testing.T) {
	testutil.NeedTools(t, "ccache", "c++")
	ctx := context.Background()
	cfg := &compilecache.Config{Tool: "ccache"}
	for _, c := range []struct {
		name     string
		keepBase bool
		wantHit  bool
	}{{"with base dir", true, true}, {"without base dir", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			shared := filepath.Join(work, "shared-ccache")
			var stats []compilecache.Stats
			for _, co := range []string{"a", filepath.Join("deeper", "b")} {
				root := filepath.Join(work, co)
				_, env, err := cfg.Setup(root, root)
				if err != nil {
					t.Fatal(err)
				}
				env = append(env, "CCACHE_DIR="+shared) // one cache for both
				if !c.keepBase {
					env = append(env, "CCACHE_BASEDIR=")
				}
				src, build := filepath.Join(root, "tree"), filepath.Join(root, "build")
				for _, d := range []string{src, build} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				write(t, filepath.Join(src, "x.h"), "#define N 41\n")
				write(t, filepath.Join(src, "x.cpp"), "#include \"x.h\"\n#include <cassert>\nint f() { assert(N > 0); return N + 1; }\n")
				if err := cfg.ZeroStats(ctx, env); err != nil {
					t.Fatal(err)
				}
				_, err = proc.Run(ctx, proc.Cmd{Path: "ccache", Dir: build, Env: append(os.Environ(), env...),
					Args: []string{"c++", "-O2", "-I" + src, "-o", "x.o", "-c", filepath.Join(src, "x.cpp")}})
				if err != nil {
					t.Fatal(err)
				}
				st, err := cfg.Stats(ctx, env)
				if err != nil {
					t.Fatal(err)
				}
				stats = append(stats, st)
			}
			if stats[0].Misses != 1 || (stats[1].Hits == 1) != c.wantHit {
				t.Errorf("first checkout %+v, second %+v; want the second to hit: %v", stats[0], stats[1], c.wantHit)
			}
		})
	}
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.TrimLeft(body, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}
