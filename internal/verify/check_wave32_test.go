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
// wave size has no guard, and that is right. Its loops run over WARP_SIZE,
// so the default width is the loop's; its 32-lane tiles shuffle by 16 and
// less, inside one 32-lane block: neither is a finding (the 57 findings the
// old rule gave on the real fork were all of these). A loop written for 64
// lanes, or an offset of 32, without a width is one: on a 32-lane wavefront
// it reads past the last lane.
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
  val += __shfl_xor(val, 16);
  val += __shfl_xor(val, 8);
  return val + __shfl_down_sync(~0ull, val, 4);
}

__device__ float warp_max(float val) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) val = fmaxf(val, __shfl_down(val, offset));
  return val;
}

__device__ float shfl_helper(float val, int lane_mask) { return __shfl_xor(val, lane_mask); }
`)
	mustPass(t, Wave32{Root: dir})
	plant(t, dir, "device/rms_norm.hip", "__device__ float shfl_helper", `__device__ float reduce64(float val) {
  for (int offset = 32; offset > 0; offset /= 2) {
    val += __shfl_down(val, offset);
  }
  return val + __shfl_xor(val, 32);
}
__device__ float shfl_helper`)
	r := mustFind(t, Wave32{Root: dir}, "device/rms_norm.hip:24", "__shfl_down without a width in this file, written for any wave size (no wave32 guard), but its loop starts offset at 32")
	mustHave(t, r, "device/rms_norm.hip:26", "its offset is 32")
	if len(r.Findings) != 2 {
		t.Errorf("want the two shuffles written for 64 lanes only, got:\n%s", findingsText(r))
	}
}

// TestWave32JITKernelInRawString: kernel text handed to hip_kernel as a raw
// string is checked as code, with lines of the file it sits in; a guarded
// kernel passes an explicit width of 32 to every shuffle.
func TestWave32JITKernelInRawString(t *testing.T) {
	dir := copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "jit_kernels.cpp", "__shfl_xor(acc, o, 32);", "__shfl_xor(acc, o);")
	r := mustFind(t, Wave32{Root: dir}, "jit_kernels.cpp:19", "__shfl_xor without a width in this JIT kernel, which is guarded as wave32")
	if len(r.Findings) != 1 {
		t.Errorf("want one finding, got:\n%s", findingsText(r))
	}
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "jit_kernels.cpp", "__shfl_xor(acc, o, 32);", "__shfl_xor(acc, o, 64);")
	mustFind(t, Wave32{Root: dir}, "jit_kernels.cpp:19", "__shfl_xor passes width 64 in this JIT kernel")
	// The unguarded kernel's 32-lane tile (offsets 16 down) needs no width.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "jit_kernels.cpp", "__shfl_xor(v, o, 32));", "__shfl_xor(v, o));")
	mustPass(t, Wave32{Root: dir})
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
    for (int o = 32; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
)";
constexpr const char* FUSED_NORM_HIP_SOURCE = R"(
    for (int o = 32; o > 0; o >>= 1) acc += __shfl_xor(acc, o);
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
	// A guard with #warning instead of #error stops no wave64 build.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/warp_reduce.hip", "#error \"warp_reduce.hip assumes wave32; build for gfx10/gfx11 or port it\"", "#warning \"x\"")
	plant(t, dir, "device/warp_reduce.hip", "#error \"warp_reduce.hip assumes wave32\"", "#warning \"y\"")
	r = mustFind(t, Wave32{Root: dir}, "warp_reduce.hip:8", "guards its wavefront size with #warning")
	if len(r.Findings) != 1 {
		t.Errorf("want the #warning guard only, got:\n%s", findingsText(r))
	}
	// Under the guard, a shuffle without a width fails.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/warp_reduce.hip", "__shfl_xor(v, offset, 32);", "__shfl_xor(v, offset);")
	mustFind(t, Wave32{Root: dir}, "warp_reduce.hip:19", "__shfl_xor without a width in this file, which is guarded as wave32")
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
