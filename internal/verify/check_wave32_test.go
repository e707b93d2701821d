package verify

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

func TestWave32Clean(t *testing.T) {
	r := mustPass(t, Wave32{Root: "testdata/wave32/clean"})
	want := "4 of 5 files use lanes: 3 guarded wave32, 2 for any wave size, 2 of these JIT kernels in strings"
	if r.Reason != want {
		t.Errorf("reason = %q, want %q; elementwise.hip's comment, string and comparison must not count", r.Reason, want)
	}
}

// TestWave32AnyWaveNeedsNoGuard is the real fork's shape (NripeshN/mlx
// rms_norm.hip, scaled_dot_product_attention.hip): code written for any
// wave size has no guard, and that is right; what it must have is a width
// on each shuffle.
func TestWave32AnyWaveNeedsNoGuard(t *testing.T) {
	dir := copyTree(t, "testdata/wave32/clean")
	writeFile(t, dir, "device/rms_norm.hip", `#include "device/config.h"

__device__ float warp_reduce_sum_rms(float val) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    val += __shfl_xor(val, offset);
  }
  return val;
}

// Tile-based reduction for 32-thread groups (works on both RDNA and CDNA)
__device__ float tile_reduce_sum_32(float val) {
  val += __shfl_xor(val, 16, 32);
  return val + __shfl_down_sync(~0ull, val, 8);
}
`)
	r := mustFind(t, Wave32{Root: dir}, "device/rms_norm.hip:5", "__shfl_xor without a width")
	mustHave(t, r, "device/rms_norm.hip:13", "__shfl_down_sync without a width")
	if len(r.Findings) != 2 {
		t.Errorf("want the two shuffles without width only (no guard finding), got:\n%s", findingsText(r))
	}
	for _, f := range r.Findings {
		if strings.Contains(f.Message, "guard") && !strings.Contains(f.Message, "no wave32 guard") {
			t.Errorf("code for any wave size must not be asked for a guard: %s", f.Message)
		}
	}
}

// TestWave32JITKernelInRawString: kernel text handed to hip_kernel as a raw
// string is checked as code, with lines of the file it sits in.
func TestWave32JITKernelInRawString(t *testing.T) {
	dir := copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "jit_kernels.cpp", "__shfl_xor(v, o, 32));", "__shfl_xor(v, o));")
	r := mustFind(t, Wave32{Root: dir}, "jit_kernels.cpp:28", "__shfl_xor without a width in this JIT kernel")
	if len(r.Findings) != 1 {
		t.Errorf("want one finding (the guarded kernel needs no width), got:\n%s", findingsText(r))
	}
	// The guard inside the string counts for that string: drop one spelling.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "jit_kernels.cpp", "#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 32", "#if 0 && 32")
	r = mustFind(t, Wave32{Root: dir}, "jit_kernels.cpp:11", "this JIT kernel is guarded as wave32 but not on __AMDGCN_WAVEFRONT_SIZE,")
	if len(r.Findings) != 1 {
		t.Errorf("want the missing spelling only, got:\n%s", findingsText(r))
	}
}

// TestWave32OtherBackendsJIT: a launcher with several ports holds its CUDA
// source beside the HIP one (the reference engine's fused_norm.cpp); the
// CUDA text, written for 32-lane warps with _sync shuffles, is no AMD
// kernel.
func TestWave32OtherBackendsJIT(t *testing.T) {
	dir := copyTree(t, "testdata/wave32/clean")
	writeFile(t, dir, "fused_norm.cpp", `constexpr const char* FUSED_NORM_CUDA_SOURCE = R"(
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
)";
constexpr const char* FUSED_NORM_HIP_SOURCE = R"(
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor(acc, o);
)";
`)
	r := mustFind(t, Wave32{Root: dir}, "fused_norm.cpp:5", "__shfl_xor without a width in this JIT kernel")
	if len(r.Findings) != 1 {
		t.Errorf("want the HIP source's shuffle only, got:\n%s", findingsText(r))
	}
}

func TestWave32OneSpellingMissing(t *testing.T) {
	// Only the new spelling is guarded: clang 15 (ROCm 5.x) defines only the
	// old one, so this guard would never fire there.
	dir := copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/warp_reduce.hip", "#ifdef __AMDGCN_WAVEFRONT_SIZE\n#if __AMDGCN_WAVEFRONT_SIZE != 32", "#ifdef OTHER\n#if OTHER != 32")
	r := mustFind(t, Wave32{Root: dir}, "warp_reduce.hip:8", "not on __AMDGCN_WAVEFRONT_SIZE,")
	if len(r.Findings) != 1 {
		t.Errorf("want only the plain spelling reported, got:\n%s", findingsText(r))
	}
	// An #if without #error in its branch is no guard: the file is then
	// code for any wave size, and its shuffle has no width.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/warp_reduce.hip", "#error \"warp_reduce.hip assumes wave32; build for gfx10/gfx11 or port it\"", "#warning \"x\"")
	plant(t, dir, "device/warp_reduce.hip", "#error \"warp_reduce.hip assumes wave32\"", "#warning \"y\"")
	mustFind(t, Wave32{Root: dir}, "warp_reduce.hip:19", "__shfl_xor without a width in this file")
}

// TestWave32GuardMacroIsReal compiles the clean fixture's guard with the
// installed HIP compiler for a wave64 target, proving the macro names are
// the ones clang defines and the guard fires.
func TestWave32GuardMacroIsReal(t *testing.T) {
	clang, err := exec.LookPath("clang++-15")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("clang++-15 (Debian's HIP compiler) not installed")
		}
		t.Fatal("clang++-15 not found; CI installs it with hipcc")
	}
	src := "#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 32\n#error wave64\n#endif\n" +
		"#if defined(__AMDGCN_WAVEFRONT_SIZE__) && __AMDGCN_WAVEFRONT_SIZE__ != 32\n#error wave64\n#endif\n"
	f := t.TempDir() + "/g.hip"
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	compile := func(arch string) error {
		res, err := proc.Run(context.Background(), proc.Cmd{Path: clang, Args: []string{"-x", "hip", "--rocm-path=/usr",
			"--rocm-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
			"--offload-arch=" + arch, "--cuda-device-only", "-nogpuinc", "-fsyntax-only", f}})
		if err != nil && !strings.Contains(string(res.Stderr), "error: wave64") {
			t.Fatalf("%s failed for another reason than the guard: %v", arch, err)
		}
		return err
	}
	if err := compile("gfx1030"); err != nil {
		t.Errorf("gfx1030 (wave32) tripped the guard: %v", err)
	}
	if err := compile("gfx90a"); err == nil {
		t.Errorf("gfx90a (wave64) compiled: the guard's macro names are not what clang defines")
	}
}
