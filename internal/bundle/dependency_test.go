package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestHeadersFromDependency: a header entry naming a dependency copies the
// folder CMake's cache says the build took it from (MLX compiles its CCCL's
// path in only for its tests, so a program built without them finds no
// CCCL for its run-time kernels unless the bundle has it), replacing what
// an earlier entry put there; without the cache entry (the system's copy
// was used) an earlier entry's folder is kept, and with none it is an
// error naming the variable.
func TestHeadersFromDependency(t *testing.T) {
	root := t.TempDir()
	build, dep, tc := filepath.Join(root, "build"), filepath.Join(root, "deps", "cccl"), filepath.Join(root, "tc")
	testutil.WriteFile(t, filepath.Join(dep, "include", "cuda", "std", "type_traits"), "// new\n")
	testutil.WriteFile(t, filepath.Join(tc, "include", "cccl", "old.h"), "// toolkit\n")
	testutil.WriteFile(t, filepath.Join(tc, "include", "rt.h"), "// rt\n")
	policy := &configs.BundlePolicy{Headers: []configs.BundleHeaders{
		{From: "{toolchain.root}/include", To: "include"},
		{Dependency: "cccl", From: "include", To: "include/cccl"},
	}}
	in := Input{BuildDir: build, ToolchainRoot: tc}
	cache := filepath.Join(build, "CMakeCache.txt")

	tmp := t.TempDir()
	if _, err := in.copyHeaders(policy, tmp); err == nil || !strings.Contains(err.Error(), "build the backend first") {
		t.Fatalf("no CMakeCache.txt: want an error saying to build first, got %v", err)
	}

	testutil.WriteFile(t, cache, "CMAKE_BUILD_TYPE:STRING=Release\nFETCHCONTENT_SOURCE_DIR_CCCL:PATH="+dep+"\n")
	got, err := in.copyHeaders(policy, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "include", "cccl", "cuda", "std", "type_traits")); err != nil {
		t.Errorf("the dependency's headers are not in include/cccl: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "include", "cccl", "old.h")); err == nil {
		t.Error("the toolkit's include/cccl was not replaced by the dependency's")
	}
	if len(got) != 2 || got[1].From != "dependency cccl/include" {
		t.Errorf("manifest headers %+v, want the second from \"dependency cccl/include\"", got)
	}

	testutil.WriteFile(t, cache, "CMAKE_BUILD_TYPE:STRING=Release\n")
	tmp = t.TempDir()
	got, err = in.copyHeaders(policy, tmp)
	if err != nil || len(got) != 1 {
		t.Fatalf("the system's copy: want the toolkit's include/cccl kept, got %+v, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(tmp, "include", "cccl", "old.h")); err != nil {
		t.Errorf("the toolkit's include/cccl is gone: %v", err)
	}

	only := &configs.BundlePolicy{Headers: policy.Headers[1:]}
	if _, err := in.copyHeaders(only, t.TempDir()); err == nil || !strings.Contains(err.Error(), "no FETCHCONTENT_SOURCE_DIR_CCCL") {
		t.Fatalf("no cache entry and no earlier entry: want an error naming FETCHCONTENT_SOURCE_DIR_CCCL, got %v", err)
	}
}
