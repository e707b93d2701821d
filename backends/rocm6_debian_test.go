package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// fakeDebianROCm6 lays out what Debian's ROCm 6.4 packages (sid: hipcc
// 7.0.2 on clang-21, libamdhip64-dev 6.4.3) put under a root: hipcc's clang
// is a versioned link into /usr/lib/llvm-21, the device libraries
// (rocm-device-libs-21) live in that clang's resource directory, and the
// CMake package configs sit in the multiarch directory; amd_comgr's config
// derives its prefix from the path it is loaded through, as the real one
// does.
func fakeDebianROCm6(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	ma := multiarch.Host()
	writeFile(t, filepath.Join(root, "include", "hip", "hip_runtime.h"), "", 0o644)
	writeFile(t, filepath.Join(root, "include", "hip", "hip_version.h"),
		"#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n#define HIP_VERSION_PATCH 43484\n", 0o644)
	for _, lib := range []string{"libamdhip64.so.6", "libhiprtc.so.6", "libamd_comgr.so.3"} {
		writeFile(t, filepath.Join(root, "lib", ma, lib), "", 0o644)
	}
	writeFile(t, filepath.Join(root, "lib", "llvm-21", "bin", "clang++"), "#!/bin/sh\nexit 0\n", 0o755)
	writeFile(t, filepath.Join(root, "lib", "llvm-21", "lib", "clang", "21", "amdgcn", "bitcode", "ocml.bc"), "", 0o644)
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/llvm-21/bin/clang++", filepath.Join(root, "bin", "clang++-21")); err != nil {
		t.Fatal(err)
	}
	cm := filepath.Join(root, "lib", ma, "cmake")
	writeFile(t, filepath.Join(cm, "hip-lang", "hip-lang-config.cmake"),
		"include(CMakeFindDependencyMacro)\nfind_dependency(amd_comgr)\nset(hip-lang_FOUND TRUE)\n", 0o644)
	writeFile(t, filepath.Join(cm, "amd_comgr", "amd_comgr-config.cmake"), `get_filename_component(AMD_COMGR_PREFIX "${CMAKE_CURRENT_LIST_FILE}" PATH)
get_filename_component(AMD_COMGR_PREFIX "${AMD_COMGR_PREFIX}" PATH)
get_filename_component(AMD_COMGR_PREFIX "${AMD_COMGR_PREFIX}" PATH)
get_filename_component(AMD_COMGR_PREFIX "${AMD_COMGR_PREFIX}" PATH)
get_filename_component(AMD_COMGR_PREFIX "${AMD_COMGR_PREFIX}" PATH)
include("${AMD_COMGR_PREFIX}/lib/`+ma+`/cmake/amd_comgr/amd_comgr-targets.cmake")
`, 0o644)
	writeFile(t, filepath.Join(cm, "amd_comgr", "amd_comgr-targets.cmake"), "set(amd_comgr_FOUND TRUE)\n", 0o644)
	return root
}

// TestLocateROCm6DebianLayout reads Debian's ROCm 6 layout from a fake
// root: the version from hip_version.h, the multiarch library directory,
// hipcc's versioned clang, and the device libraries in that clang's
// resource directory (Debian 12's ROCm 5.2 kept them in the multiarch
// directory, where main looked only).
func TestLocateROCm6DebianLayout(t *testing.T) {
	root := fakeDebianROCm6(t)
	r, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": root}))
	if err != nil {
		t.Fatal(err)
	}
	if r.version.String() != "6.4.43484" || r.versionFrom != "include/hip/hip_version.h" {
		t.Errorf("Version = %s from %s, want 6.4.43484 from include/hip/hip_version.h", r.version, r.versionFrom)
	}
	if r.LibDir != filepath.Join(root, "lib", multiarch.Host()) || !r.multiarchLayout {
		t.Errorf("LibDir=%s multiarchLayout=%v, want the multiarch layout", r.LibDir, r.multiarchLayout)
	}
	if r.hipCompiler != filepath.Join(root, "bin", "clang++-21") {
		t.Errorf("hipCompiler = %s, want bin/clang++-21", r.hipCompiler)
	}
	if want := filepath.Join(root, "lib", "llvm-21", "lib", "clang", "21", "amdgcn", "bitcode"); r.deviceLibDir != want {
		t.Errorf("deviceLibDir = %s, want %s", r.deviceLibDir, want)
	}
}

// TestCMakeSetupROCm6Comgr configures a real CMake project that finds
// hip-lang through the prefix CMakeSetup makes, as CMake's HIP language
// does: hip-lang's find_dependency(amd_comgr) must load amd_comgr from its
// real directory, since a config reached through a link into the prefix
// resolves its own prefix wrongly (the first real ROCm 6 configure failed
// so: "include could not find requested file .../amd_comgr-targets.cmake").
func TestCMakeSetupROCm6Comgr(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja")
	root := fakeDebianROCm6(t)
	r, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": root}))
	if err != nil {
		t.Fatal(err)
	}
	defs, env, err := r.CMakeSetup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.24)\nproject(p NONE)\nfind_package(hip-lang CONFIG REQUIRED)\nmessage(STATUS \"hip-lang found: ${hip-lang_FOUND}, amd_comgr loaded: ${amd_comgr_FOUND}\")\n", 0o644)
	// Ninja, as every build mlxbuild drives: make is only a Recommends of
	// Debian's cmake, absent where setup installed it (--no-install-recommends).
	args := []string{"-G", "Ninja", "-S", proj, "-B", filepath.Join(proj, "build"), "-DCMAKE_HIP_COMPILER_ROCM_ROOT=" + defs["CMAKE_HIP_COMPILER_ROCM_ROOT"]}
	out, err := testutil.Run(append(os.Environ(), env...), proj, "cmake", args...)
	if err != nil {
		t.Fatalf("configure through the prefix: %v\n%s", err, out)
	}
	if !strings.Contains(out, "hip-lang found: 1, amd_comgr loaded: 1") && !strings.Contains(out, "hip-lang found: 1, amd_comgr loaded: TRUE") {
		t.Errorf("configure output lacks hip-lang and amd_comgr found:\n%s", out)
	}
}
