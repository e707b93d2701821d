package cmake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestReadCXXStandardRemembers configures a project with real CMake: the
// first read of the code model leaves a memo in the build directory, the
// next read takes its answer from it (a memo edited to say so answers)
// without decoding the model again, and the memo stops answering when a
// file it was read from changes, when the targets asked for differ, and
// when CMake generates again with another standard (a new index).
func TestReadCXXStandardRemembers(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	src := t.TempDir()
	testutil.WriteFile(t, filepath.Join(src, "a.cpp"), "int a() { return 1; }\n")
	lists := func(std string) {
		testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES CXX)\nset(CMAKE_CXX_STANDARD "+std+")\nadd_library(lib STATIC a.cpp)\n")
	}
	lists("17")
	build := filepath.Join(t.TempDir(), "build")
	if err := Configure(context.Background(), ConfigureOptions{Source: src, Build: build}); err != nil {
		t.Fatal(err)
	}
	first, err := ReadCXXStandard(build, []string{"lib"})
	if err != nil || first.Std != "c++17" {
		t.Fatalf("first read: %+v, %v", first, err)
	}
	memo := filepath.Join(build, stdMemoFile)
	data, err := os.ReadFile(memo)
	if err != nil {
		t.Fatalf("no memo after the first read: %v", err)
	}
	m, ok := imemo.Parse(stdMemoKind, data)
	if std, _ := stdFromValues(m.Values); !ok || len(m.Files) != 3 || std != first {
		t.Fatalf("memo %q: %+v, %v; want the index, the model and the target's file, and %+v", data, m, ok, first)
	}
	// Said by the memo only: the answer comes from it.
	m.Values[1][1] = "the memo"
	if err := os.WriteFile(memo, imemo.Format(stdMemoKind, m), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadCXXStandard(build, []string{"lib"}); err != nil || got.From != "the memo" {
		t.Errorf("second read: %+v, %v; want the memo's answer", got, err)
	}
	if got, err := ReadCXXStandard(build, []string{"lib", "other"}); err != nil || got.From == "the memo" {
		t.Errorf("other targets: %+v, %v; want a fresh read", got, err)
	}

	// A reply file changed in place (same size): decoded again.
	if err := os.WriteFile(memo, imemo.Format(stdMemoKind, m), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := imemo.KeyPath(m.Files[2])
	reply, err := os.ReadFile(p)
	if err != nil || !strings.Contains(string(reply), `"standard" : "17"`) {
		t.Fatalf("target reply %s: %v\n%s", p, err, reply)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(reply), `"standard" : "17"`, `"standard" : "14"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadCXXStandard(build, []string{"lib"}); err != nil || got.Std != "c++14" {
		t.Errorf("after the reply changed: %+v, %v; want c++14", got, err)
	}

	// CMake generates again with another standard: a new index.
	lists("20")
	if err := Configure(context.Background(), ConfigureOptions{Source: src, Build: build}); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadCXXStandard(build, []string{"lib"}); err != nil || got.Std != "c++20" {
		t.Errorf("after configuring C++20: %+v, %v", got, err)
	}
}
