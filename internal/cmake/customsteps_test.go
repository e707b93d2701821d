package cmake

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestStepsCountCustomCommands builds a project that makes two objects the
// way the ROCm fork makes its kernels, in custom commands with their own
// wording, and archives them beside one CMake-compiled file: every edge
// Ninja ran is a step, and a CMake re-run is not.
func TestStepsCountCustomCommands(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	ctx := context.Background()
	src := t.TempDir()
	files := map[string]string{
		"CMakeLists.txt": `cmake_minimum_required(VERSION 3.20)
project(custom CXX)
set(objs "")
foreach(k a b)
  add_custom_command(OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/${k}.o
    COMMAND ${CMAKE_CXX_COMPILER} -c ${CMAKE_CURRENT_SOURCE_DIR}/${k}.cpp -o ${CMAKE_CURRENT_BINARY_DIR}/${k}.o
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${k}.cpp
    COMMENT "Compiling HIP source ${CMAKE_CURRENT_SOURCE_DIR}/${k}.cpp")
  list(APPEND objs ${CMAKE_CURRENT_BINARY_DIR}/${k}.o)
endforeach()
add_library(kernels STATIC main.cpp ${objs})
`,
		"a.cpp":    "int a() { return 1; }\n",
		"b.cpp":    "int b() { return 2; }\n",
		"main.cpp": "int a(); int b(); int both() { return a() + b(); }\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := filepath.Join(t.TempDir(), "build")
	var cfgLog bytes.Buffer
	if err := Configure(ctx, ConfigureOptions{Source: src, Build: build, Log: &cfgLog}); err != nil {
		t.Fatalf("%v\n%s", err, cfgLog.String())
	}
	var prog bytes.Buffer
	res, err := Build(ctx, BuildOptions{Dir: build, Jobs: 2, Progress: &prog, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	// The fork's own wording stays, its absolute path does not.
	if !strings.Contains(prog.String(), "] Compiling HIP source a.cpp\n") || strings.Contains(prog.String(), src) {
		t.Errorf("progress should name a.cpp relative to the source tree:\n%s", prog.String())
	}
	// a.o, b.o, main.cpp's object and the archive.
	if res.Steps != 4 || res.Steps != len(res.Ran) || res.Total != 4 {
		t.Errorf("ran %d steps of %d (%v), want 4 of 4: the custom commands count", res.Steps, res.Total, stepsOf(res))
	}
	// Touching the project file makes Ninja re-run CMake first; that edge
	// is not a build step, and nothing else is out of date.
	now := filepath.Join(src, "CMakeLists.txt")
	body, _ := os.ReadFile(now)
	if err := os.WriteFile(now, append(body, []byte("# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := Build(ctx, BuildOptions{Dir: build, Jobs: 2, Progress: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Steps != 0 {
		t.Errorf("after a project-file edit: %d steps (%v), want 0 (only CMake re-ran)", again.Steps, stepsOf(again))
	}
}
