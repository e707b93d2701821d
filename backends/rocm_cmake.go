package backends

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// CMakeSetup returns what CMake needs to compile HIP with this toolchain:
// cache defines for the configure command line and variables to add to its
// environment. scratch is a directory mlxbuild owns (under the cache); keep it
// stable, since the paths written there become configure inputs.
//
// On AMD's /opt/rocm CMake finds everything itself and nothing is returned.
// On Debian's multiarch layout CMake 3.25's `enable_language(HIP)` looks for
// hip-lang in /usr/lib/cmake and fails, and it rejects hipcc as the compiler;
// so this makes a prefix under scratch whose lib/cmake/hip-lang and
// lib/cmake/amd_comgr lead to Debian's directories, puts it on
// CMAKE_PREFIX_PATH, names clang++ as the HIP compiler with that prefix as its
// ROCm root, and passes --rocm-path and --rocm-device-lib-path, which
// Debian's clang does not find by itself.
func (r *rocmToolchain) CMakeSetup(scratch string) (defines map[string]string, env []string, err error) {
	defines, env, prefix, err := r.cmakeDefines(scratch)
	if err != nil || prefix == "" {
		return defines, env, err
	}
	cmakeDir := filepath.Join(prefix, "lib", "cmake")
	if err := os.MkdirAll(cmakeDir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("create the CMake prefix for Debian's ROCm: %w; make %s writable", err, scratch)
	}
	for _, pkg := range []string{"hip-lang", "amd_comgr"} {
		target := filepath.Join(r.LibDir, "cmake", pkg)
		if !isDir(target) {
			return nil, nil, fmt.Errorf("%s is missing: CMake cannot enable HIP without it; install it (Debian: apt-get install libamdhip64-dev)", target)
		}
	}
	// hip-lang is linked into the prefix: its targets file resolves its
	// real location. amd_comgr is not: its config (ROCm 6) derives its
	// prefix from the path it was loaded through, so through a link it
	// includes <prefix>/lib/<multiarch>/cmake/amd_comgr/amd_comgr-targets.cmake,
	// which does not exist. The prefix holds forwarding files that include
	// the real ones, whose own path is then the real one. (A cache define
	// amd_comgr_DIR would not reach the try_compile projects in which
	// CMake's HIP language loads hip-lang.)
	if err := linkOnce(filepath.Join(r.LibDir, "cmake", "hip-lang"), filepath.Join(cmakeDir, "hip-lang")); err != nil {
		return nil, nil, err
	}
	if err := forwardPackage(filepath.Join(r.LibDir, "cmake", "amd_comgr"), filepath.Join(cmakeDir, "amd_comgr")); err != nil {
		return nil, nil, err
	}
	return defines, env, nil
}

// CMakeDefines are the defines CMakeSetup returns, made without writing
// anything: what a configure would be given, for plan and the build's
// decision (a new HIP compiler needs an empty build directory).
func (r *rocmToolchain) CMakeDefines(scratch string) (map[string]string, error) {
	defines, _, _, err := r.cmakeDefines(scratch)
	return defines, err
}

// cmakeDefines is CMakeSetup's answer, and the prefix it must make under
// scratch ("" for none).
func (r *rocmToolchain) cmakeDefines(scratch string) (defines map[string]string, env []string, prefix string, err error) {
	defines = map[string]string{}
	if r.root == "/opt/rocm" && !r.multiarchLayout {
		return defines, nil, "", nil
	}
	if !r.multiarchLayout {
		// Another real ROCm root (ROCM_PATH=/opt/rocm-6.1.2): point CMake at it.
		defines["CMAKE_HIP_COMPILER"] = r.hipCompiler
		defines["CMAKE_HIP_COMPILER_ROCM_ROOT"] = r.root
		return defines, []string{"CMAKE_PREFIX_PATH=" + r.root, "ROCM_PATH=" + r.root}, "", nil
	}
	prefix, err = filepath.Abs(filepath.Join(scratch, "rocm-cmake-prefix"))
	if err != nil {
		return nil, nil, "", err
	}
	defines["CMAKE_HIP_COMPILER"] = r.hipCompiler
	defines["CMAKE_HIP_COMPILER_ROCM_ROOT"] = prefix
	defines["CMAKE_HIP_FLAGS"] = flagString("--rocm-path="+r.root, "--rocm-device-lib-path="+r.deviceLibDir)
	return defines, []string{"CMAKE_PREFIX_PATH=" + prefix}, prefix, nil
}

// linkOnce makes link a symlink to target, leaving a correct one untouched
// (so nothing looks changed to a later configure) and replacing a wrong one.
func linkOnce(target, link string) error {
	if cur, err := os.Readlink(link); err == nil && cur == target {
		return nil
	}
	if err := os.RemoveAll(link); err != nil {
		return fmt.Errorf("replace %s: %w", link, err)
	}
	if err := os.Symlink(target, link); err != nil {
		return fmt.Errorf("link %s -> %s: %w", link, target, err)
	}
	return nil
}

// forwardPackage makes dir a package directory whose *-config*.cmake files
// each include the file of the same name in real. An earlier mlxbuild's
// link at dir is replaced; unchanged files are not rewritten, so nothing
// looks changed to a later configure.
func forwardPackage(real, dir string) error {
	if st, err := os.Lstat(dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if err := os.Remove(dir); err != nil {
			return fmt.Errorf("replace the link %s: %w", dir, err)
		}
	}
	names, err := filepath.Glob(filepath.Join(real, "*-config*.cmake"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("%s holds no package config: CMake cannot enable HIP without it; install it (Debian: apt-get install libamdhip64-dev)", real)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for _, name := range names {
		body := fmt.Sprintf("# Written by mlxbuild: the real file, loaded from where it lives.\ninclude(%q)\n", filepath.ToSlash(name))
		if _, err := atomicfile.WriteIfChanged(filepath.Join(dir, filepath.Base(name)), []byte(body), 0o644); err != nil {
			return fmt.Errorf("write the forwarding package config in %s: %w", dir, err)
		}
	}
	return nil
}
