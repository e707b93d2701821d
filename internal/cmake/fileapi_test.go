package cmake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestReadCXXStandard configures small projects with real CMake and reads
// the standard each target compiles with from the code model Configure
// asked for: CXX_STANDARD (from CMAKE_CXX_STANDARD) and a cxx_std_20
// compile feature both count, the newest of the named targets wins, a
// target with none says so, and a build configured without the query, a
// build not configured, and a reply that is not JSON are told apart.
func TestReadCXXStandard(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	src := t.TempDir()
	testutil.WriteFile(t, filepath.Join(src, "a.cpp"), "int a() { return 1; }\n")
	testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.21)
project(p LANGUAGES C CXX)
set(CMAKE_CXX_STANDARD 17)
add_library(old STATIC a.cpp)
add_library(feat STATIC a.cpp)
target_compile_features(feat PUBLIC cxx_std_20)
set(CMAKE_CXX_STANDARD)
add_library(plain STATIC a.cpp)
`)
	build := filepath.Join(t.TempDir(), "build")
	notConfigured, err := ReadCXXStandard(build, []string{"old"})
	if err != nil || notConfigured.Std != "" || !strings.Contains(notConfigured.From, "not configured") {
		t.Errorf("before configure: %+v, %v", notConfigured, err)
	}
	if err := Configure(context.Background(), ConfigureOptions{Source: src, Build: build}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		targets  []string
		std, why string
	}{
		{[]string{"old"}, "c++17", "target old compiles as C++17"},
		{[]string{"old", "feat", "plain"}, "c++20", "target feat compiles as C++20"},
		{[]string{"plain"}, "", "CMake sets no C++ standard for plain"},
		{[]string{"nosuch"}, "", "has no target nosuch"},
	} {
		got, err := ReadCXXStandard(build, c.targets)
		if err != nil || got.Std != c.std || !strings.Contains(got.From, c.why) {
			t.Errorf("%v: %+v, %v; want %q from %q", c.targets, got, err, c.std, c.why)
		}
	}

	// CMake alone (no query): configured, but nothing to read.
	bare := filepath.Join(t.TempDir(), "bare")
	testutil.RunOK(t, nil, "", "cmake", "-S", src, "-B", bare, "-G", "Ninja")
	if got, err := ReadCXXStandard(bare, []string{"old"}); err != nil || got.Std != "" || !strings.Contains(got.From, "configured before mlxbuild asked") {
		t.Errorf("configured without the query: %+v, %v", got, err)
	}

	// A broken reply is an error that names its file.
	reply := filepath.Join(build, ".cmake", "api", "v1", "reply")
	targets, _ := filepath.Glob(filepath.Join(reply, "target-old-*.json"))
	if len(targets) != 1 {
		t.Fatalf("no reply for target old in %s", reply)
	}
	if err := os.WriteFile(targets[0], []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCXXStandard(build, []string{"old"}); err == nil || !strings.Contains(err.Error(), targets[0]) {
		t.Errorf("a broken reply: %v, want an error naming %s", err, targets[0])
	}
}
