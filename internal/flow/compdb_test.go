package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

type compileEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Command   string   `json:"command"`
	Arguments []string `json:"arguments"`
}

// compileDB reads a build's compile_commands.json: its bytes, the entries
// CMake writes (a command string), and the argument-vector entries by file.
func compileDB(t *testing.T, build string) (data []byte, cmake []compileEntry, hip map[string]compileEntry) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(build, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all []compileEntry
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatalf("compile_commands.json: %v\n%s", err, data)
	}
	hip = map[string]compileEntry{}
	for _, e := range all {
		if e.Arguments == nil {
			cmake = append(cmake, e)
			continue
		}
		if _, dup := hip[e.File]; dup {
			t.Fatalf("%s is listed twice", e.File)
		}
		hip[e.File] = e
	}
	return data, cmake, hip
}

// TestCompileDBListsCustomCommandHIPCompiles builds the example with the
// ROCm fork's model (one add_custom_command per .hip, which CMake leaves out
// of its database) through build:rocm, and reads compile_commands.json:
// every .hip of the tree with a compile whose -c names it, beside every
// entry CMake wrote; a no-op build leaves the file byte for byte; after CMake
// rewrites it (by hand, by Ninja's regeneration, by a configure for new
// architectures) the next build has it complete again.
func TestCompileDBListsCustomCommandHIPCompiles(t *testing.T) {
	ctx := context.Background()
	p, run := forkStyleProject(t)
	build := filepath.Join(p.Cache, "rocm", "build")
	tree := filepath.Join(p.Cache, "rocm", "tree")
	complete := func(t *testing.T, arch string) ([]byte, []compileEntry) {
		t.Helper()
		data, cmakes, hip := compileDB(t, build)
		var files []string
		for f, e := range hip {
			files = append(files, f)
			c := slices.Index(e.Arguments, "-c")
			if c < 0 || e.Arguments[c+1] != f || !slices.Contains(e.Arguments, "--offload-arch="+arch) || e.Directory != filepath.Join(build, "mlx/backend/rocm") {
				t.Errorf("entry of %s: %+v; want a compile whose -c names it, for %s, run in the rocm build directory", f, e, arch)
			}
			// build.ninja runs it through mlxbuild's custom-command
			// launcher; the database lists the compiler's own command.
			if filepath.Base(e.Arguments[0]) == "mlxbuild-launch" || slices.Contains(e.Arguments, "--") {
				t.Errorf("entry of %s: %q holds the launcher", f, e.Arguments)
			}
		}
		slices.Sort(files)
		rocm := filepath.Join(tree, "mlx/backend/rocm")
		if want := []string{filepath.Join(rocm, "binary.hip"), filepath.Join(rocm, "device.hip"), filepath.Join(rocm, "reduce.hip")}; !reflect.DeepEqual(files, want) {
			t.Fatalf("HIP entries for %v, want %v", files, want)
		}
		for _, e := range cmakes {
			if strings.HasSuffix(e.File, ".hip") || !strings.HasPrefix(e.File, tree) {
				t.Fatalf("CMake entry %+v: want a C++ file of the tree", e)
			}
		}
		if len(cmakes) == 0 {
			t.Fatal("no CMake entry is left")
		}
		return data, cmakes
	}

	run(t)
	first, cmakes := complete(t, "gfx1030")
	stat := func() time.Time {
		fi, err := os.Stat(filepath.Join(build, "compile_commands.json"))
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	mtime := stat()

	t.Run("no-op build", func(t *testing.T) {
		if out := run(t); !strings.Contains(out, "up to date") {
			t.Fatalf("not a no-op:\n%s", out)
		}
		if again, _, _ := compileDB(t, build); !bytes.Equal(again, first) || !stat().Equal(mtime) {
			t.Fatalf("a no-op build rewrote compile_commands.json:\n%s\n----\n%s", first, again)
		}
	})
	t.Run("CMake rewrites it", func(t *testing.T) {
		// What Ninja's regeneration runs; CMake's file has no HIP compile.
		if _, err := proc.Run(ctx, proc.Cmd{Path: "cmake", Args: []string{"-S", tree, "-B", build}}); err != nil {
			t.Fatal(err)
		}
		if _, only, hip := compileDB(t, build); len(hip) != 0 || !reflect.DeepEqual(only, cmakes) {
			t.Fatalf("CMake's own database: %d HIP entries and %+v, want none and %+v", len(hip), only, cmakes)
		}
		run(t)
		if again, _ := complete(t, "gfx1030"); !bytes.Equal(again, first) {
			t.Fatalf("completed again, the file differs:\n%s\n----\n%s", first, again)
		}
	})
	t.Run("Ninja regenerates", func(t *testing.T) {
		time.Sleep(20 * time.Millisecond)
		testutil.WriteFile(t, filepath.Join(p.Rocm, "mlx/backend/rocm/CMakeLists.txt"), forkStyleKernels+"# edited\n")
		run(t)
		if _, now := complete(t, "gfx1030"); !reflect.DeepEqual(now, cmakes) {
			t.Fatalf("CMake entries %+v, want %+v", now, cmakes)
		}
	})
	t.Run("a compile sh must expand", func(t *testing.T) {
		// Not VERBATIM: sh expands $(nproc) when it runs, so no entry can
		// hold it; the build warns once and stands.
		testutil.WriteFile(t, filepath.Join(p.Rocm, "mlx/backend/rocm/CMakeLists.txt"), forkStyleKernels+`
add_custom_command(OUTPUT ${HIP_OBJ_DIR}/jobs.o
  COMMAND ${CMAKE_HIP_COMPILER} -c ${CMAKE_CURRENT_SOURCE_DIR}/binary.hip -o ${HIP_OBJ_DIR}/jobs.o -parallel-jobs=$$(nproc)
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/binary.hip)
add_custom_target(jobs DEPENDS ${HIP_OBJ_DIR}/jobs.o)
`)
		out := run(t)
		if want := "warning: " + filepath.Join(build, "compile_commands.json") + " leaves out 1 HIP compile whose"; strings.Count(out, want) != 1 || !strings.Contains(out, "jobs.o: unquoted $") {
			t.Fatalf("want one warning %q naming jobs.o:\n%s", want, out)
		}
		complete(t, "gfx1030")
		if out := run(t); strings.Contains(out, "warning:") {
			t.Fatalf("the no-op after it warns again:\n%s", out)
		}
	})
	t.Run("configure for other architectures", func(t *testing.T) {
		t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx90a")
		run(t)
		complete(t, "gfx90a")
	})
}
