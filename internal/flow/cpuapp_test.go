package flow_test

import (
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// plainCMake is a stand-in MLX that builds one static libmlx.a and declares
// no dependency.
const plainCMake = "cmake_minimum_required(VERSION 3.24)\nproject(mlx LANGUAGES CXX)\nset(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})\nadd_library(mlx STATIC mlx.cpp)\n"

// newCPUApp makes a throw-away project for build:cpu in a temporary
// directory: src/ holds plainCMake and its source, the cache is ../cache,
// and projectYAML is the project file after its source.dir line. It clears
// the variables that would select another project, cache or backend, and
// returns the project's directory.
func newCPUApp(t *testing.T, projectYAML string) string {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	app := filepath.Join(t.TempDir(), "app")
	testutil.WriteFile(t, filepath.Join(app, "src", "CMakeLists.txt"), plainCMake)
	testutil.WriteFile(t, filepath.Join(app, "src", "mlx.cpp"), "int mlx_answer() { return 42; }\n")
	writeCPUProject(t, app, projectYAML)
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	return app
}

// writeCPUProject (re)writes newCPUApp's project file.
func writeCPUProject(t *testing.T, app, projectYAML string) {
	t.Helper()
	testutil.WriteFile(t, filepath.Join(app, "mlxbuild.yaml"), "source:\n  dir: src\n"+projectYAML+"cache: ../cache\n")
}

func sumIsNoop(s *flow.Summary) bool {
	return s != nil && len(s.Why) == 0 && s.Steps == 0 && !s.Reconfigured
}
