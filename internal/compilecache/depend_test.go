package compilecache_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// fakeGXXLogEnv names the file where this test binary, run as <dir>/g++,
// appends each of its command lines before running the real g++: what
// ccache asked the compiler to do, one line per run.
const fakeGXXLogEnv = "MLXBUILD_TEST_FAKE_GXX_LOG"

func loggingGXX(log string, args []string) int {
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.WriteString(strings.Join(args, " ") + "\n")
		f.Close()
	}
	if err != nil {
		os.Stderr.WriteString("fake g++: " + err.Error() + "\n")
		return 1
	}
	_, err = proc.RunLeaf(context.Background(), proc.Cmd{Path: "/usr/bin/g++", Args: args, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	return exitStatus("fake g++", err)
}

// TestMissRunsOnlyTheCompile compiles one file the way Ninja does (with
// -MD -MF) through ccache with Setup's environment and an empty cache: the
// miss must run the compiler once, for the compile, and never for a
// preprocessor pass (-E), which costs a cold build about a seventh more CPU
// on real MLX. A second checkout still hits through the base directory.
func TestMissRunsOnlyTheCompile(t *testing.T) {
	testutil.NeedTools(t, "ccache", "/usr/bin/g++")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	work := t.TempDir()
	bin := filepath.Join(work, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	gxx := filepath.Join(bin, "g++")
	if err := os.Symlink(self, gxx); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(work, "g++.log")
	t.Setenv(fakeGXXLogEnv, log)
	shared := filepath.Join(work, "ccache")
	cfg := &compilecache.Config{Tool: "ccache"}
	var stats []compilecache.Stats
	for _, co := range []string{"a", filepath.Join("deeper", "b")} {
		root := filepath.Join(work, co)
		_, env, err := cfg.Setup(root, root)
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "CCACHE_DIR="+shared)
		src, build := filepath.Join(root, "tree"), filepath.Join(root, "build")
		for _, d := range []string{src, build} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		write(t, filepath.Join(src, "x.h"), "#define N 41\n")
		write(t, filepath.Join(src, "x.cpp"), "#include \"x.h\"\nint f() { return N + 1; }\n")
		if err := cfg.ZeroStats(ctx, env); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		_, err = proc.Run(ctx, proc.Cmd{Path: "ccache", Dir: build, Env: append(os.Environ(), env...),
			Args: []string{gxx, "-O2", "-I" + src, "-MD", "-MT", "x.o", "-MF", "x.o.d", "-o", "x.o", "-c", filepath.Join(src, "x.cpp")}})
		if err != nil {
			t.Fatal(err)
		}
		st, err := cfg.Stats(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
		runs, _ := os.ReadFile(log)
		lines := strings.Split(strings.TrimSpace(string(runs)), "\n")
		if co == "a" {
			if len(lines) != 1 || slices.Contains(strings.Fields(lines[0]), "-E") {
				t.Errorf("the miss ran the compiler %d times: %q; want one compile and no -E", len(lines), lines)
			}
		} else if len(runs) != 0 {
			t.Errorf("the hit ran the compiler: %q", lines)
		}
	}
	if stats[0].Misses != 1 || stats[1].Hits != 1 {
		t.Errorf("first checkout %+v, second %+v; want a miss, then a hit", stats[0], stats[1])
	}
}
