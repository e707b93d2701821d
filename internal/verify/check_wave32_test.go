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
	if r.Reason != "2 of 3 files use lanes" {
		t.Errorf("reason = %q; elementwise.hip's comment, string and comparison must not count", r.Reason)
	}
}

func TestWave32ShuffleWithoutGuard(t *testing.T) {
	dir := copyTree(t, "testdata/wave32/clean")
	writeFile(t, dir, "device/scan.hip", "#include <hip/hip_runtime.h>\n\n__device__ int scan(int v) {\n  return v + __shfl_up(v, 1);\n}\n")
	r := mustFind(t, Wave32{Root: dir}, "device/scan.hip:4", "no #error guard on __AMDGCN_WAVEFRONT_SIZE__")
	if len(r.Findings) != 2 {
		t.Errorf("want one finding per macro, got:\n%s", findingsText(r))
	}
}

func TestWave32OneSpellingMissing(t *testing.T) {
	// Only the new spelling is guarded: clang 15 (ROCm 5.x) defines only the
	// old one, so this guard would never fire there.
	dir := copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/warp_reduce.hip", "#ifdef __AMDGCN_WAVEFRONT_SIZE\n#if __AMDGCN_WAVEFRONT_SIZE != 32", "#ifdef OTHER\n#if OTHER != 32")
	r := mustFind(t, Wave32{Root: dir}, "warp_reduce.hip:18", "no #error guard on __AMDGCN_WAVEFRONT_SIZE")
	if len(r.Findings) != 1 {
		t.Errorf("want only the plain spelling reported, got:\n%s", findingsText(r))
	}
	// An #if without #error in its branch is no guard.
	dir = copyTree(t, "testdata/wave32/clean")
	plant(t, dir, "device/lane_mask.hip", "#error \"lane_mask.hip assumes wave32\"\n#elif", "#warning \"lane_mask.hip assumes wave32\"\n#elif")
	mustFind(t, Wave32{Root: dir}, "lane_mask.hip:12", "__AMDGCN_WAVEFRONT_SIZE")
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
