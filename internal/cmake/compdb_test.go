package cmake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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

// customHIPProject is a stand-in with the ROCm fork's build model: C++
// compiled by CMake, each .hip by its own add_custom_command (no HIP
// language, no depfile). One source has a space in its name and the
// command a quoted define, so the database must hold what sh passes; one
// command sh must expand, which no entry can hold. The
// compiler is never run: the database is made from build.ninja alone.
const customHIPProject = `cmake_minimum_required(VERSION 3.20)
project(standin LANGUAGES CXX)
add_library(core STATIC core.cpp)
add_subdirectory(rocm)
`

const customHIPRocm = `set(HIP_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/binary.hip "${CMAKE_CURRENT_SOURCE_DIR}/k space.hip")
set(HIP_OBJ_DIR ${CMAKE_CURRENT_BINARY_DIR}/hip_objs)
foreach(hip_src ${HIP_SOURCES})
  get_filename_component(name ${hip_src} NAME_WE)
  add_custom_command(
    OUTPUT ${HIP_OBJ_DIR}/${name}.o
    COMMAND /usr/bin/hipcc -c ${hip_src} -o ${HIP_OBJ_DIR}/${name}.o -fPIC "-DMLX_NAME=\"a b\"" -I${PROJECT_SOURCE_DIR}
    DEPENDS ${hip_src}
    VERBATIM)
  list(APPEND HIP_OBJECTS ${HIP_OBJ_DIR}/${name}.o)
endforeach()
# Not VERBATIM, and sh expands $(nproc) when it runs: no fixed arguments.
add_custom_command(OUTPUT ${HIP_OBJ_DIR}/jobs.o
  COMMAND /usr/bin/hipcc -c ${CMAKE_CURRENT_SOURCE_DIR}/jobs.hip -o ${HIP_OBJ_DIR}/jobs.o -parallel-jobs=$$(nproc)
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/jobs.hip)
add_custom_target(jobs DEPENDS ${HIP_OBJ_DIR}/jobs.o)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/libk.a COMMAND ${CMAKE_AR} rcs ${CMAKE_BINARY_DIR}/libk.a ${HIP_OBJECTS} DEPENDS ${HIP_OBJECTS} VERBATIM)
add_custom_target(kernels ALL DEPENDS ${CMAKE_BINARY_DIR}/libk.a)
add_library(host STATIC host.cpp)
`

// configureCustomHIP writes the stand-in and configures it with real CMake
// for Ninja; it returns the source tree and the build directory.
func configureCustomHIP(t testing.TB) (src, build string) {
	t.Helper()
	src, build = filepath.Join(t.TempDir(), "tree"), filepath.Join(t.TempDir(), "build")
	testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), customHIPProject)
	testutil.WriteFile(t, filepath.Join(src, "core.cpp"), "int core() { return 1; }\n")
	testutil.WriteFile(t, filepath.Join(src, "rocm", "CMakeLists.txt"), customHIPRocm)
	testutil.WriteFile(t, filepath.Join(src, "rocm", "host.cpp"), "int host() { return 2; }\n")
	testutil.WriteFile(t, filepath.Join(src, "rocm", "binary.hip"), "__global__ void b() {}\n")
	testutil.WriteFile(t, filepath.Join(src, "rocm", "k space.hip"), "__global__ void k() {}\n")
	testutil.WriteFile(t, filepath.Join(src, "rocm", "jobs.hip"), "__global__ void j() {}\n")
	var log bytes.Buffer
	if err := Configure(context.Background(), ConfigureOptions{Source: src, Build: build, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return src, build
}

type dbEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Command   string   `json:"command"`
	Arguments []string `json:"arguments"`
}

func readDB(t *testing.T, path string) ([]byte, []dbEntry) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var es []dbEntry
	if err := json.Unmarshal(data, &es); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return data, es
}

// TestCompleteCompileDB configures the stand-in with real CMake and Ninja
// and checks the completed database: CMake's C++ entries as CMake wrote
// them, and for each .hip an arguments entry whose -c names it, run where
// Ninja runs it. Completing again is a stat; without the stamp it writes the
// same bytes (no duplicate). After Ninja regenerates, the file is complete
// again.
func TestCompleteCompileDB(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	ctx := context.Background()
	src, build := configureCustomHIP(t)
	dbPath := filepath.Join(build, CompileDBFile)
	_, cmakes := readDB(t, dbPath)
	if len(cmakes) != 2 {
		t.Fatalf("CMake wrote %d entries, want the 2 C++ compiles: %+v", len(cmakes), cmakes)
	}

	res, err := CompleteCompileDB(ctx, build)
	if err != nil || res.Added != 2 || !res.Written || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "jobs.o: unquoted $") {
		t.Fatalf("CompleteCompileDB = %+v, %v; want 2 added and written, jobs.o skipped for its $", res, err)
	}
	first, all := readDB(t, dbPath)
	check := func(all []dbEntry) {
		t.Helper()
		if !reflect.DeepEqual(all[:len(cmakes)], cmakes) {
			t.Fatalf("CMake's entries changed:\n%+v\nwant\n%+v", all[:len(cmakes)], cmakes)
		}
		rocmBuild := filepath.Join(build, "rocm")
		for i, name := range []string{"binary.hip", "k space.hip"} {
			e := all[len(cmakes)+i]
			want := filepath.Join(src, "rocm", name)
			c := slices.Index(e.Arguments, "-c")
			if e.File != want || e.Directory != rocmBuild || e.Command != "" || c < 0 || e.Arguments[c+1] != want ||
				e.Arguments[0] != "/usr/bin/hipcc" || !slices.Contains(e.Arguments, `-DMLX_NAME="a b"`) {
				t.Errorf("entry for %s: %+v; want file %s compiled with -c in %s", name, e, want, rocmBuild)
			}
		}
		if len(all) != len(cmakes)+2 {
			t.Fatalf("%d entries, want %d", len(all), len(cmakes)+2)
		}
	}
	check(all)

	fi, _ := os.Stat(dbPath)
	if res, err = CompleteCompileDB(ctx, build); err != nil || !res.Current {
		t.Fatalf("second CompleteCompileDB = %+v, %v; want Current", res, err)
	}
	os.Remove(filepath.Join(build, compileDBStampFile))
	if res, err = CompleteCompileDB(ctx, build); err != nil || res.Current || res.Written || res.Added != 2 {
		t.Fatalf("CompleteCompileDB without its stamp = %+v, %v; want it read, not written", res, err)
	}
	// A stamp of an older mlxbuild's form is a miss, read and not written.
	testutil.WriteFile(t, filepath.Join(build, compileDBStampFile), fmt.Sprintf("mlxbuild-compdb v1 %d %d 1\n", fi.Size(), fi.ModTime().UnixNano()))
	if res, err = CompleteCompileDB(ctx, build); err != nil || res.Current || res.Written || res.Added != 2 {
		t.Fatalf("CompleteCompileDB with an older stamp = %+v, %v; want it read, not written", res, err)
	}
	if res, err = CompleteCompileDB(ctx, build); err != nil || !res.Current {
		t.Fatalf("CompleteCompileDB after restamping = %+v, %v; want Current", res, err)
	}
	again, _ := readDB(t, dbPath)
	if fi2, _ := os.Stat(dbPath); !bytes.Equal(first, again) || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("completing a complete database changed it:\n%s\n----\n%s", first, again)
	}

	// Ninja re-runs CMake when a CMakeLists.txt changed; CMake rewrites
	// the database without the HIP compiles.
	time.Sleep(20 * time.Millisecond)
	testutil.WriteFile(t, filepath.Join(src, "rocm", "CMakeLists.txt"), customHIPRocm+"# edited\n")
	if _, err := proc.Run(ctx, proc.Cmd{Path: "ninja", Args: []string{"-C", build, "build.ninja"}}); err != nil {
		t.Fatal(err)
	}
	if _, regenerated := readDB(t, dbPath); len(regenerated) != len(cmakes) {
		t.Fatalf("CMake's regenerated database has %d entries, want its %d", len(regenerated), len(cmakes))
	}
	if res, err = CompleteCompileDB(ctx, build); err != nil || res.Added != 2 || !res.Written {
		t.Fatalf("CompleteCompileDB after regenerating = %+v, %v", res, err)
	}
	_, all = readDB(t, dbPath)
	check(all)
}

// TestCompleteCompileDBExportOff: a project that turns
// CMAKE_EXPORT_COMPILE_COMMANDS off gets no database from mlxbuild either.
func TestCompleteCompileDBExportOff(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	ctx := context.Background()
	src, build := filepath.Join(t.TempDir(), "tree"), filepath.Join(t.TempDir(), "build")
	testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.20)\nproject(off LANGUAGES CXX)\nset(CMAKE_EXPORT_COMPILE_COMMANDS OFF)\nadd_subdirectory(rocm)\n")
	testutil.WriteFile(t, filepath.Join(src, "rocm", "CMakeLists.txt"), customHIPRocm)
	testutil.WriteFile(t, filepath.Join(src, "rocm", "host.cpp"), "int host() { return 2; }\n")
	var log bytes.Buffer
	if err := Configure(ctx, ConfigureOptions{Source: src, Build: build, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	res, err := CompleteCompileDB(ctx, build)
	if err != nil || !res.Absent {
		t.Fatalf("CompleteCompileDB = %+v, %v; want Absent", res, err)
	}
	if _, err := os.Stat(filepath.Join(build, CompileDBFile)); !os.IsNotExist(err) {
		t.Fatalf("a database appeared: %v", err)
	}
}

// TestCompleteCompileDBKeepsCMakeHIPEntries: where CMake compiles HIP as a
// language it lists the .hip itself (a command string); such an entry is
// CMake's and stays, and only arguments entries of HIP sources (mlxbuild's)
// are replaced. A file that is no database is an error naming it.
func TestCompleteCompileDBKeepsCMakeHIPEntries(t *testing.T) {
	data := []byte(`[
{"directory": "/b", "command": "/usr/bin/clang++-15 -x hip -c /t/k.hip", "file": "/t/k.hip"},
{"directory": "/b", "arguments": ["/usr/bin/c++", "-c", "/t/m.cpp"], "file": "/t/m.cpp"},
{"directory": "/b", "arguments": ["/usr/bin/hipcc", "-c", "/t/old.hip"], "file": "/t/old.hip"}
]`)
	kept, dropped, err := cmakeEntries(data)
	if err != nil || len(kept) != 2 || dropped != 1 || !bytes.Contains(kept[0], []byte("clang++-15")) || !bytes.Contains(kept[1], []byte("m.cpp")) {
		t.Fatalf("cmakeEntries kept %q, dropped %d, %v; want the CMake .hip and the .cpp entries kept, old.hip dropped", kept, dropped, err)
	}
	build := t.TempDir()
	testutil.WriteFile(t, filepath.Join(build, CompileDBFile), `{"file": "x"}`)
	if _, err := CompleteCompileDB(context.Background(), build); err == nil || !strings.Contains(err.Error(), filepath.Join(build, CompileDBFile)+" is not a compilation database") {
		t.Fatalf("CompleteCompileDB on an object = %v; want an error naming the file", err)
	}
}
