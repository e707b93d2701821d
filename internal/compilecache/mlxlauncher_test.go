package compilecache_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// mlxLauncherCMake behaves like MLX's CMakeLists.txt at 39886de4: an option,
// ON by default, that puts whatever ccache is on PATH in front of the
// compiler as a plain variable (shadowing the cache entry Setup passes).
const mlxLauncherCMake = `
cmake_minimum_required(VERSION 3.24)
project(standin CXX)
option(MLX_USE_CCACHE "Use CCache when available" ON)
if(MLX_USE_CCACHE)
  find_program(CCACHE_PROGRAM ccache)
  if(CCACHE_PROGRAM)
    set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  endif()
endif()
add_library(x STATIC x.cpp)
`

// TestSetupOverridesMLXOwnLauncher configures that stand-in with Setup's
// defines and reads the compile command Ninja would run: with no launcher
// there is no ccache in it, and a chosen launcher is the one used. The
// first case drops MLXOwnLauncher from the defines and must see MLX's ccache,
// which shows the stand-in reproduces what a cold build:cpu of real MLX did
// (it compiled through ~/.cache/ccache with MLXBUILD_LAUNCHER=none).
func TestSetupOverridesMLXOwnLauncher(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++", "ccache")
	ccache, _, err := (&compilecache.Config{Tool: "ccache"}).Setup(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ccachePath := ccache["CMAKE_CXX_COMPILER_LAUNCHER"]
	for _, c := range []struct {
		name      string
		cfg       *compilecache.Config
		dropOwn   bool   // leave MLX's option at its default
		want      string // "" for no launcher; else the define's path
		wantNotIn string // a launcher that must not be in the command
	}{
		{name: "MLX's default, without the override", dropOwn: true, want: ccachePath},
		{name: "no launcher", wantNotIn: "ccache"},
		{name: "ccache", cfg: &compilecache.Config{Tool: "ccache"}, want: ccachePath},
		{name: "sccache", cfg: &compilecache.Config{Tool: "sccache"}, wantNotIn: "ccache"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.cfg != nil && c.cfg.Tool == "sccache" {
				testutil.NeedTools(t, "sccache")
			}
			dir := t.TempDir()
			defs, _, err := c.cfg.Setup(dir, dir)
			if err != nil {
				t.Fatal(err)
			}
			if c.dropOwn {
				delete(defs, compilecache.MLXOwnLauncher)
			}
			want := c.want
			if c.cfg != nil && c.cfg.Tool == "sccache" {
				want = defs["CMAKE_CXX_COMPILER_LAUNCHER"]
			}
			src, build := filepath.Join(dir, "src"), filepath.Join(dir, "build")
			if err := os.MkdirAll(src, 0o755); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(src, "CMakeLists.txt"), mlxLauncherCMake)
			write(t, filepath.Join(src, "x.cpp"), "int f() { return 1; }\n")
			args, err := cmake.ConfigureArgs(cmake.ConfigureOptions{Source: src, Build: build, Defines: defs})
			if err != nil {
				t.Fatal(err)
			}
			if out, err := proc.Run(context.Background(), proc.Cmd{Path: "cmake", Args: args}); err != nil {
				t.Fatalf("configure: %v\n%s", err, out.Stderr)
			}
			cmd := compileCommand(t, build)
			first := strings.Fields(cmd)[0]
			if want == "" && filepath.Base(first) != "c++" {
				t.Errorf("compile command %q, want the compiler first (no launcher)", cmd)
			}
			if want != "" && first != want {
				t.Errorf("compile command %q, want launcher %s first", cmd, want)
			}
			if c.wantNotIn != "" && strings.Contains(cmd, "/"+c.wantNotIn+" ") {
				t.Errorf("compile command %q runs %s", cmd, c.wantNotIn)
			}
		})
	}
}

// compileCommand returns the command of the CXX compile rule in the Ninja
// rules CMake wrote.
func compileCommand(t *testing.T, build string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(build, "CMakeFiles", "rules.ninja"))
	if err != nil {
		t.Fatal(err)
	}
	inRule := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "rule ") {
			inRule = strings.HasPrefix(line, "rule CXX_COMPILER__x_")
		}
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "command = "); ok && inRule {
			return cmd
		}
	}
	t.Fatalf("no CXX compile rule for target x in %s/CMakeFiles/rules.ninja", build)
	return ""
}
