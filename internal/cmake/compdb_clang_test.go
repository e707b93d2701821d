package cmake

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCompileDBServesClangTools runs a real clang tool (clang-check, the
// same LLVM database reader clangd and clang-tidy use) on a custom-command
// HIP source of the stand-in. The source compiles only with the -D its
// custom command passes: with CMake's database alone the tool falls back to
// a C++ entry's flags and fails; with the completed one it parses the file.
func TestCompileDBServesClangTools(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++", "hipcc", "clang-check-15")
	ctx := context.Background()
	src, build := configureCustomHIP(t)
	hip := filepath.Join(src, "rocm", "binary.hip")
	testutil.WriteFile(t, hip, "#include <hip/hip_runtime.h>\n#ifndef MLX_NAME\n#error compiled without its custom command's flags\n#endif\n__global__ void b(float* x) { x[threadIdx.x] = 1; }\n")
	// hipcc adds the ROCm paths itself; a clang tool needs them given
	// (README.md: "Outputs: the compilation database").
	args := []string{"-p", build, hip}
	if libs, _ := filepath.Glob("/usr/lib/*/amdgcn/bitcode"); len(libs) > 0 {
		args = append(args, "--extra-arg=--rocm-path=/usr", "--extra-arg=--rocm-device-lib-path="+libs[0])
	}
	check := func() (string, error) {
		res, err := proc.Run(ctx, proc.Cmd{Path: "clang-check-15", Args: args})
		return string(res.Stdout) + string(res.Stderr), err
	}
	if out, err := check(); err == nil || !strings.Contains(out, "compiled without its custom command's flags") {
		t.Fatalf("with CMake's database alone clang-check should miss the flags: %v\n%s", err, out)
	}
	if res, err := CompleteCompileDB(ctx, build); err != nil || res.Added != 2 {
		t.Fatalf("CompleteCompileDB = %+v, %v", res, err)
	}
	if out, err := check(); err != nil {
		t.Fatalf("clang-check on the completed database: %v\n%s", err, out)
	}
}
