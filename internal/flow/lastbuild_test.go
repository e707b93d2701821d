package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestNewPinReconfigures checks the one case where a build's two decisions
// may not share what they read of the last build: a new pin purges the
// build directory (and its configure record) between them, so the second
// must configure from scratch; the next build is a no-op again.
func TestNewPinReconfigures(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	app := filepath.Join(t.TempDir(), "app")
	testutil.WriteFile(t, filepath.Join(app, "src", "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.24)\nproject(mlx LANGUAGES CXX)\nset(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})\nadd_library(mlx STATIC mlx.cpp)\n")
	testutil.WriteFile(t, filepath.Join(app, "src", "mlx.cpp"), "int mlx_answer() { return 42; }\n")
	project := func(pin string) {
		testutil.WriteFile(t, filepath.Join(app, "mlxbuild.yaml"), "source:\n  dir: src\n  pin: "+pin+"\ncache: ../cache\n")
	}
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	ctx := context.Background()
	o := flow.Options{Dir: app, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	build := func() *flow.Summary {
		t.Helper()
		sum, err := flow.Build(ctx, o, "build:cpu", "cpu")
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	project(strings.Repeat("a", 40))
	build()
	if sum := build(); !sumIsNoop(sum) {
		t.Fatalf("second build is not a no-op: %+v", sum)
	}
	project(strings.Repeat("b", 40))
	sum := build()
	if !sum.Reconfigured || sum.Steps == 0 || len(sum.Why) == 0 || !strings.Contains(strings.Join(sum.Why, "; "), "pin") {
		t.Fatalf("a new pin: want a purge, a configure and a rebuild, got %+v", sum)
	}
	if _, err := os.Stat(filepath.Join(app, "..", "cache", "cpu", "build", "libmlx.a")); err != nil {
		t.Fatal(err)
	}
	if sum := build(); !sumIsNoop(sum) {
		t.Fatalf("the build after the new pin's is not a no-op: %+v", sum)
	}
}
