package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestROCmPathWithSpaceCompilesHIP points ROCM_PATH at a root whose name
// has a space and a quote (links to Debian's toolchain under /usr) and
// compiles a HIP kernel through CMake and Ninja with CMakeSetup's defines:
// CMAKE_HIP_FLAGS must keep --rocm-path in one piece.
func TestROCmPathWithSpaceCompilesHIP(t *testing.T) {
	testutil.NeedTools(t, "hipcc", "cmake", "ninja")
	debian, err := LocateROCm(envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if debian.root != "/usr" || !debian.multiarchLayout {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs Debian 12's ROCm (at /usr, multiarch), found %s", debian)
		}
		t.Skipf("%s is not Debian's layout this test links to", debian)
	}
	base := t.TempDir()
	root := filepath.Join(base, "ROCm 5.2's \"root\"")
	for _, d := range []string{"include", "bin", filepath.Join("lib", multiarch.Host())} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, d)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("/usr", d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": root}))
	if err != nil {
		t.Fatal(err)
	}
	if !r.multiarchLayout || !strings.Contains(r.deviceLibDir, root) {
		t.Fatalf("the spaced root was not taken as Debian's layout: %+v", r)
	}
	defs, env, err := r.CMakeSetup(filepath.Join(base, "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `"--rocm-path=` + strings.ReplaceAll(root, `"`, `\"`) + `"`; !strings.HasPrefix(defs["CMAKE_HIP_FLAGS"], want+" ") {
		t.Errorf("CMAKE_HIP_FLAGS = %q, want it to start with %q", defs["CMAKE_HIP_FLAGS"], want)
	}
	src := filepath.Join(base, "src")
	testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), "cmake_minimum_required(VERSION 3.21)\nproject(k LANGUAGES CXX HIP)\nadd_library(k STATIC k.hip)\n")
	testutil.WriteFile(t, filepath.Join(src, "k.hip"), "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n")
	args := []string{"-S", src, "-B", filepath.Join(base, "build"), "-G", "Ninja", "-DCMAKE_HIP_ARCHITECTURES=gfx1030"}
	for k, v := range defs {
		args = append(args, "-D"+k+"="+v)
	}
	cmakeEnv := append(os.Environ(), env...)
	if out, err := testutil.Run(cmakeEnv, base, "cmake", args...); err != nil {
		t.Fatalf("configure with ROCM_PATH=%q: %v\n%s", root, err, out)
	}
	if out, err := testutil.Run(cmakeEnv, base, "cmake", "--build", filepath.Join(base, "build")); err != nil {
		t.Fatalf("build with ROCM_PATH=%q: %v\n%s", root, err, out)
	}
	if _, err := os.Stat(filepath.Join(base, "build", "libk.a")); err != nil {
		t.Errorf("no libk.a: %v", err)
	}
}

func TestFlagString(t *testing.T) {
	for in, want := range map[string]string{
		"--rocm-path=/usr":     "--rocm-path=/usr",
		"--rocm-path=/opt/a b": `"--rocm-path=/opt/a b"`,
		"--x=it's":             `"--x=it's"`,
		"--x=$HOME `a` \\ \"":  `"--x=\$HOME \` + "`" + `a\` + "`" + ` \\ \""`,
		"":                     `""`,
	} {
		if got := flagString(in); got != want {
			t.Errorf("flagString(%q) = %s, want %s", in, got, want)
		}
	}
	if _, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": "/opt/rocm\n-DEVIL=1"})); err == nil || !strings.Contains(err.Error(), "ROCM_PATH") || !strings.Contains(err.Error(), "newline") {
		t.Errorf("a newline in ROCM_PATH: %v", err)
	}
	if _, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": "/usr/local/cuda\r"})); err == nil || !strings.Contains(err.Error(), "CUDA_HOME") {
		t.Errorf("a CR in CUDA_HOME: %v", err)
	}
}

// TestHIPClangPathWithControlCharacter: HIP_CLANG_PATH names the compiler
// CMake gets; a newline in it is refused, naming the variable.
func TestHIPClangPathWithControlCharacter(t *testing.T) {
	testutil.NeedTools(t, "hipcc")
	_, err := LocateROCm(envMap(map[string]string{"HIP_CLANG_PATH": "/usr/bin\n-DCMAKE_EVIL=1"}))
	if err == nil || !strings.Contains(err.Error(), "HIP_CLANG_PATH") || !strings.Contains(err.Error(), "newline") {
		t.Errorf("a newline in HIP_CLANG_PATH: %v", err)
	}
}
