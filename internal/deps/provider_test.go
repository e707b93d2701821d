package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// servedProject is a CMake project that asks for a header-only package the
// way the ROCm fork asks for rocWMMA (find_package CONFIG, then the imported
// target's include directories), plus calls the provider must pass through
// or refuse, each behind an option.
func servedProject(t *testing.T) (dir, src, provider, prefix string) {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	root := t.TempDir()
	dir, src, prefix = filepath.Join(root, "app"), filepath.Join(root, "store", "fakewmma"), filepath.Join(root, "prefix")
	// The stored source, as rocWMMA's repository lays it out: no package
	// config, headers under library/include.
	testutil.WriteFile(t, filepath.Join(src, "library", "include", "fakewmma", "fakewmma.hpp"), "#define FAKEWMMA_TILE 16\n")
	// A package the system has, in a prefix of the test's own.
	testutil.WriteFile(t, filepath.Join(prefix, "lib", "cmake", "sysdep", "sysdep-config.cmake"),
		"set(sysdep_FOUND TRUE)\nif(sysdep_FIND_COMPONENTS)\n  message(STATUS \"sysdep components: ${sysdep_FIND_COMPONENTS}\")\nendif()\n")
	testutil.WriteFile(t, filepath.Join(dir, "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.24)
project(p LANGUAGES CXX)
find_package(fakewmma 1.5 REQUIRED CONFIG)
get_target_property(FAKEWMMA_INCLUDES roc::fakewmma INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "fakewmma ${fakewmma_VERSION} includes: ${FAKEWMMA_INCLUDES}")
find_package(sysdep REQUIRED CONFIG)
find_package(sysdep CONFIG REQUIRED alpha beta)
find_package(Threads REQUIRED)
if(WANT_OPTIONAL)
  find_package(nosuchopt CONFIG QUIET)
  message(STATUS "nosuchopt found: ${nosuchopt_FOUND}")
endif()
if(WANT_UNDECLARED)
  find_package(nosuchpkg REQUIRED CONFIG)
endif()
if(WANT_NEWER)
  find_package(fakewmma 2.0 REQUIRED CONFIG)
endif()
add_library(k STATIC k.cpp)
target_link_libraries(k PRIVATE roc::fakewmma)
`)
	testutil.WriteFile(t, filepath.Join(dir, "k.cpp"), "#include <fakewmma/fakewmma.hpp>\nstatic_assert(FAKEWMMA_TILE == 16, \"the served headers\");\nint k() { return FAKEWMMA_TILE; }\n")
	dep := configs.Dependency{Name: "fakewmma", Origin: "rocm.yaml:20:5", SHA256: strings.Repeat("a", 64),
		Package: &configs.ServedPackage{Version: "1.6.0", Targets: []configs.ServedTarget{{Name: "roc::fakewmma", Include: []string{"library/include"}}}}}
	provider = filepath.Join(root, "provider.cmake")
	testutil.WriteFile(t, provider, ProviderScript([]Choice{{Dep: dep, Provider: "cache", Dir: src}}))
	return dir, src, provider, prefix
}

func configureServed(dir, provider, prefix string, defines ...string) (string, error) {
	args := append([]string{"-S", dir, "-B", filepath.Join(dir, "build"), "-G", "Ninja", "-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=" + provider, "-DCMAKE_PREFIX_PATH=" + prefix}, defines...)
	out, err := testutil.Run(os.Environ(), dir, "cmake", args...)
	// CMake wraps messages: compare with runs of white space as one space.
	return strings.Join(strings.Fields(out), " "), err
}

// TestProviderServesFindPackage: find_package(fakewmma CONFIG) is answered
// from the stored source, whose repository has no package config, and the
// build compiles against it; a package the system has and a module package
// still come from CMake's own search (component lists kept); an optional
// call that finds nothing goes on; a REQUIRED CONFIG call nothing provides,
// and a newer version than the spec serves, stop configure naming the
// package and what to do.
func TestProviderServesFindPackage(t *testing.T) {
	dir, src, provider, prefix := servedProject(t)
	out, err := configureServed(dir, provider, prefix, "-DWANT_OPTIONAL=ON")
	if err != nil {
		t.Fatalf("configure: %v\n%s", err, out)
	}
	for _, w := range []string{"fakewmma 1.6.0 includes: " + filepath.Join(src, "library", "include"), "sysdep components: alpha;beta", "nosuchopt found: 0"} {
		if !strings.Contains(out, w) {
			t.Errorf("configure output lacks %q:\n%s", w, out)
		}
	}
	if out, err := testutil.Run(os.Environ(), dir, "cmake", "--build", filepath.Join(dir, "build")); err != nil {
		t.Fatalf("build against the served headers: %v\n%s", err, out)
	}

	out, err = configureServed(dir, provider, prefix, "-DWANT_UNDECLARED=ON")
	if err == nil || !strings.Contains(out, "mlxbuild: find_package(nosuchpkg REQUIRED CONFIG) found no nosuchpkgConfig.cmake") || !strings.Contains(out, "declare it under dependencies:") {
		t.Errorf("an undeclared REQUIRED CONFIG package: %v\n%s", err, out)
	}
	out, err = configureServed(dir, provider, prefix, "-DWANT_UNDECLARED=OFF", "-DWANT_NEWER=ON")
	if err == nil || !strings.Contains(out, "find_package(fakewmma 2.0) asks for a newer version than the spec serves (1.6.0, declared at rocm.yaml:20:5)") {
		t.Errorf("a newer version than served: %v\n%s", err, out)
	}
}
