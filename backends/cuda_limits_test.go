package backends

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// locateCUDA13 is the stand-in CUDA 13.0 toolkit, located.
func locateCUDA13(t *testing.T) *cudaToolkit {
	t.Helper()
	root := testutil.FakeCUDA13(t)
	c, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": root}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCUDASupportsArch: every form MLX_CUDA_ARCHITECTURES takes is judged
// by nvcc's own lists; an architecture CUDA 13 dropped is refused, as bad
// configuration, naming the toolkit's version, what its list lacks, the
// nearest it has and the variables to change.
func TestCUDASupportsArch(t *testing.T) {
	c := locateCUDA13(t)
	for _, ok := range []string{"75", "90a", "100f", "121", "121a-real", "121f", "89-virtual", "120-real", "native", "all-major"} {
		if err := c.SupportsArch(ok); err != nil {
			t.Errorf("SupportsArch(%s): %v, want nil", ok, err)
		}
	}
	want := "70 is not supported by the CUDA 13.0.88 toolkit at " + c.root + " (nvcc --list-gpu-code has no sm_70); set MLX_CUDA_ARCHITECTURES to a target it supports (nearest: 75, 80), or CUDA_HOME to a CUDA that supports 70"
	if err := c.SupportsArch("70"); err == nil || err.Error() != want {
		t.Errorf("SupportsArch(70):\n%v\nwant\n%s", err, want)
	}
	for target, lacks := range map[string]string{"52-virtual": "--list-gpu-arch has no compute_52", "89a": "--list-gpu-code has no sm_89a", "61-real": "--list-gpu-code has no sm_61"} {
		if err := c.SupportsArch(target); err == nil || !strings.Contains(err.Error(), lacks) {
			t.Errorf("SupportsArch(%s): %v, want it to say %q", target, err, lacks)
		}
	}
	if err := c.SupportsArch("sm_90"); err == nil || fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "MLX_CUDA_ARCHITECTURES") {
		t.Errorf("SupportsArch(sm_90): %v, want bad configuration naming MLX_CUDA_ARCHITECTURES", err)
	}
}

// TestCUDAHostCompiler: nvcc's own check judges the host compiler the
// build would use; a g++ later than CUDA 13.0 allows is bad configuration
// naming CUDAHOSTCXX and -allow-unsupported-compiler, which lets it by.
func TestCUDAHostCompiler(t *testing.T) {
	c := locateCUDA13(t)
	newer, older := testutil.FakeGXX(t, "15"), testutil.FakeGXX(t, "13")
	if err := c.CheckHostCompiler(envMap(map[string]string{"CUDAHOSTCXX": older}), nil); err != nil {
		t.Errorf("g++ 13: %v, want accepted", err)
	}
	err := c.CheckHostCompiler(envMap(map[string]string{"CUDAHOSTCXX": newer}), nil)
	want := "the host compiler CUDAHOSTCXX=" + newer + " is refused by nvcc of the CUDA 13.0.88 toolkit at " + c.root +
		" (unsupported GNU version! gcc versions later than 14 are not supported!); set CUDAHOSTCXX to a g++ this nvcc supports, or add -allow-unsupported-compiler to CMAKE_CUDA_FLAGS (CUDAFLAGS, or a spec define) at your own risk"
	if err == nil || err.Error() != want || fail.KindOf(err) != fail.Config {
		t.Errorf("g++ 15: %v (kind %v)\nwant, exit 2:\n%s", err, fail.KindOf(err), want)
	}
	err = c.CheckHostCompiler(envMap(nil), map[string]string{"CMAKE_CUDA_HOST_COMPILER": newer})
	if err == nil || !strings.Contains(err.Error(), "the define CMAKE_CUDA_HOST_COMPILER="+newer) {
		t.Errorf("g++ 15 as a define: %v", err)
	}
	for _, env := range []map[string]string{{"CUDAHOSTCXX": newer, "CUDAFLAGS": "-allow-unsupported-compiler"}} {
		if err := c.CheckHostCompiler(envMap(env), nil); err != nil {
			t.Errorf("%v: %v, want let by", env, err)
		}
	}
	if err := c.CheckHostCompiler(envMap(map[string]string{"CUDAHOSTCXX": newer}), map[string]string{"CMAKE_CUDA_FLAGS": "-O2 -allow-unsupported-compiler"}); err != nil {
		t.Errorf("CMAKE_CUDA_FLAGS -allow-unsupported-compiler: %v, want let by", err)
	}
}

// TestCUDAFamilyFormsNeed129: an nvcc older than 12.9 whose lists show no
// f form at all is still refused 100f (its lists are taken at the number
// otherwise).
func TestCUDAFamilyFormsNeed129(t *testing.T) {
	c := &cudaToolkit{root: "/cuda-12.8", version: mustVersion(t, "12.8.93"), lists: &cudaArchLists{
		code: parseGPUList("sm_90 sm_90a sm_100 sm_100a sm_120", "sm_"), arch: parseGPUList("compute_90 compute_90a compute_100 compute_100a compute_120", "compute_"),
	}}
	if err := c.SupportsArch("100f"); err == nil || !strings.Contains(err.Error(), "100f is not supported by the CUDA 12.8.93 toolkit at /cuda-12.8 (the f (family) forms came with CUDA 12.9)") {
		t.Errorf("CUDA 12.8 and 100f: %v", err)
	}
	if err := c.SupportsArch("100a"); err != nil {
		t.Errorf("CUDA 12.8 and 100a: %v", err)
	}
}

func TestParseGPUList(t *testing.T) {
	got := parseGPUList("sm_75\nsm_90a\n\nsm_100f\ncompute_80\nsm_x\nsm_90-real\n", "sm_")
	if len(got) != 3 || !got["75"] || !got["90a"] || !got["100f"] {
		t.Errorf("got %v", got)
	}
}

func FuzzParseGPUList(f *testing.F) {
	f.Add("sm_75\nsm_121a\n", "sm_")
	f.Fuzz(func(t *testing.T, out, prefix string) {
		for n := range parseGPUList(out, prefix) {
			if cudaTargetRe.FindStringSubmatch(n) == nil || strings.Contains(n, "-") {
				t.Errorf("%q from %q", n, out)
			}
		}
	})
}

// TestCUDALimitsReal asks the machine's real nvcc (the GPU machine's CUDA
// 13): it refuses 70 and accepts what GB10 and the H200 measure, accepts
// its own default host compiler, and refuses a g++ that says it is GCC 99
// (the real g++ with __GNUC__ redefined) with host_config.h's own words.
// CI has no CUDA: there the real search must fail naming CUDA_HOME.
func TestCUDALimitsReal(t *testing.T) {
	env := envMap(map[string]string{"PATH": os.Getenv("PATH") + ":" + filepath.Join(defaultCUDARoot, "bin")})
	c, err := LocateCUDA(env)
	if noRealCUDA(t, c, err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	c.limitsMu.Lock()
	l, err := c.gpuLists()
	c.limitsMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: --list-gpu-code %v, --list-gpu-arch %v", c, slices.Sorted(maps.Keys(l.code)), slices.Sorted(maps.Keys(l.arch)))
	if c.version.Segments()[0] >= 13 {
		err := c.SupportsArch("70")
		if err == nil || !strings.Contains(err.Error(), "nearest: 75, 80") {
			t.Errorf("CUDA 13 and 70: %v, want refused with the nearest 75, 80", err)
		}
		t.Logf("70: %v", err)
		for _, ok := range []string{"75", "90a", "121", "121a-real", "100f"} {
			if err := c.SupportsArch(ok); err != nil {
				t.Errorf("CUDA 13 and %s: %v, want accepted", ok, err)
			}
		}
	}
	if err := c.CheckHostCompiler(env, nil); err != nil {
		t.Errorf("nvcc's default host compiler: %v, want accepted", err)
	}
	gxx, lerr := exec.LookPath("g++")
	if lerr != nil {
		t.Fatalf("no g++ beside nvcc: %v", lerr)
	}
	gcc99 := filepath.Join(t.TempDir(), "g++-99")
	writeFile(t, gcc99, "#!/bin/sh\nexec "+gxx+" -U__GNUC__ -D__GNUC__=99 \"$@\"\n", 0o755)
	err = c.CheckHostCompiler(envMap(map[string]string{"CUDAHOSTCXX": gcc99}), nil)
	if err == nil || fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "unsupported GNU version") {
		t.Errorf("g++ saying GCC 99: %v, want exit 2 with nvcc's unsupported GNU version", err)
	}
	t.Logf("GCC 99: %v", err)
}
