package backends

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// LocateRoot finds the root of the toolchain of that name (rocm, cuda)
// from files alone, running none of its programs: what a check-only run
// (an editor's, a lint job's, docs.rs's) needs for the include directory
// it publishes. The full locators ask hipconfig, clang++ or nvcc (about a
// second, and a compiler process); a check-only run compiles nothing, so
// it has no use for their answers. The root is the variable's value when
// set (ROCM_PATH, CUDA_HOME), else the first of roots (the spec's default
// and fallbacks) that holds the toolchain's runtime header, and for CUDA
// then the directory above nvcc on PATH. Lib is the first of
// lib/<multiarch>, lib64 and lib that exists.
func LocateRoot(name, envVar string, roots []string, env func(string) string) (*ToolchainInfo, error) {
	b := Lookup(name)
	if b == nil || b.Toolchain == nil || b.Toolchain.rootHeader == "" {
		return nil, fmt.Errorf("backends: no toolchain named %q", name)
	}
	header := b.Toolchain.rootHeader
	if b.Toolchain.lastRoot != nil {
		if root := b.Toolchain.lastRoot(); root != "" {
			roots = append(roots, root)
		}
	}
	info := &ToolchainInfo{Name: name, Env: envVar}
	if v := env(envVar); v != "" {
		if err := checkRootVar(envVar, v); err != nil {
			return nil, err
		}
		roots = []string{v}
	}
	var tried []string
	for _, root := range roots {
		root = filepath.Clean(root)
		if _, err := os.Stat(filepath.Join(root, "include", header)); err != nil {
			tried = append(tried, filepath.Join(root, "include", header))
			continue
		}
		info.Root, info.bin = root, filepath.Join(root, "bin")
		for _, lib := range []string{filepath.Join(root, "lib", multiarch.Host()), filepath.Join(root, "lib64"), filepath.Join(root, "lib")} {
			if st, err := os.Stat(lib); err == nil && st.IsDir() {
				info.Lib = lib
				break
			}
		}
		return info, nil
	}
	return nil, fmt.Errorf("no %s toolchain root found (no %s); install it or set %s to its root", name, strings.Join(tried, ", no "), envVar)
}
