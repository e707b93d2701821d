package gpurun_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/tests/gpurun"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// TestCUDAEndToEnd builds the bundled example's CUDA overlay through
// flow.Build (the repository's own mlxbuild.yaml, a fresh cache) with the
// architectures this machine's nvidia-smi reports, shows the kernel
// archive's code objects with cuobjdump, links the C++ consumer with the
// link plan's ldflags.txt and runs it with LD_LIBRARY_PATH unset: it
// launches the overlay's kernel on the GPU and compares every element with
// the CPU. Without an NVIDIA GPU (CI) it is reported as not run.
func TestCUDAEndToEnd(t *testing.T) {
	ctx := context.Background()
	gpus, err := gpurun.FindGPUs(ctx, os.Getenv)
	if errors.Is(err, gpurun.ErrNoGPU) {
		t.Skipf("not run: no NVIDIA GPU (nvidia-smi found none): %s", strings.TrimPrefix(err.Error(), gpurun.ErrNoGPU.Error()+": "))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nvidia-smi -L (%s):\n%s", gpus.Tool, strings.Join(gpus.Lines, "\n"))
	testutil.NeedTools(t, "cmake", "ninja", "c++", "readelf")
	cuda, err := backends.LocateCUDA(os.Getenv)
	if err != nil {
		needToolkit(t, err)
	}
	cuobjdump := filepath.Join(cuda.BinDir, "cuobjdump")
	t.Logf("toolkit: %s", cuda)

	want := wantArchs(t, gpus.Tool)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("MLXBUILD_CACHE", cache)
	for _, v := range []string{arch.EnvCUDA, "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	t.Setenv("NO_COLOR", "1")

	build := func(t *testing.T) *flow.Summary {
		t.Helper()
		var stdout, stderr bytes.Buffer
		sum, err := flow.Build(ctx, flow.Options{Dir: repo, Stdout: &stdout, Stderr: &stderr}, "cuda")
		t.Logf("build:cuda:\n%s", stderr.String())
		if err != nil {
			t.Fatalf("build:cuda: %v", err)
		}
		return sum
	}
	sum := build(t)
	if sum.Arch != want || !strings.HasPrefix(sum.ArchSource, "nvidia-smi rows ") || !sum.Reconfigured || sum.Steps == 0 {
		t.Fatalf("build:cuda: arch %q from %q, reconfigured %v, %d steps; want %q from nvidia-smi rows, a configure and steps",
			sum.Arch, sum.ArchSource, sum.Reconfigured, sum.Steps, want)
	}

	// Read as a parent repository would, through the public reader.
	plan, err := linkplan.Read(sum.Out)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(plan.Static, func(s string) bool { return filepath.Base(s) == "libmlx_cuda_kernels.a" })
	if i < 0 || !slices.Contains(plan.Dynamic, "cudart") {
		t.Fatalf("link.json: static %v, dynamic %v; want libmlx_cuda_kernels.a and cudart", plan.Static, plan.Dynamic)
	}
	kernels := plan.Static[i]

	t.Run("cuobjdump shows the architectures", func(t *testing.T) {
		out := testutil.RunOK(t, nil, "", cuobjdump, "--list-elf", kernels)
		t.Logf("cuobjdump --list-elf %s:\n%s", kernels, out)
		for _, a := range strings.Split(want, ";") {
			if !strings.Contains(out, ".sm_"+a+".cubin") {
				t.Errorf("no sm_%s cubin in %s", a, kernels)
			}
		}
		rep, err := arch.Check(ctx, kernels, arch.Options{})
		t.Logf("arch.Check: %s", strings.Join(rep.Lines, "; "))
		if err != nil {
			t.Error(err)
		}
	})

	t.Run("consumer runs the kernel", func(t *testing.T) {
		ldflags, err := gpurun.ReadLdflags(filepath.Join(sum.Out, "ldflags.txt"))
		if err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(t.TempDir(), "consumer")
		args := []string{"-std=c++17", "-DMLX_CONSUMER_CUDA", "-I", filepath.Join(cache, "cuda", "tree"),
			filepath.Join(repo, "examples", "cxx-consumer", "main.cpp")}
		args = append(append(args, ldflags...), "-o", exe)
		t.Logf("c++ %s", strings.Join(args, " "))
		testutil.RunOK(t, nil, "", "c++", args...)

		out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", exe)
		t.Logf("consumer (LD_LIBRARY_PATH unset):\n%s", out)
		wants := []string{"backend=cuda archs=" + strings.ReplaceAll(want, ";", ","), "matches the CPU"}
		if os.Getenv("CUDA_VISIBLE_DEVICES") == "" {
			// The runtime sees what nvidia-smi lists unless a mask hides some.
			wants = append(wants, "cuda: "+plural.Count(len(gpus.Lines), "device")+", ")
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("consumer output lacks %q", w)
			}
		}
		dyn := testutil.RunOK(t, nil, "", "readelf", "-d", exe)
		t.Logf("readelf -d consumer:\n%s", dyn)
		if !strings.Contains(dyn, "Shared library: [libcudart.so") {
			t.Errorf("readelf -d: no NEEDED libcudart")
		}
		runpath := testutil.Field(dyn, "Library runpath: [")
		if strings.Contains(dyn, "Library rpath:") || !slices.Equal(strings.Split(runpath, ":"), plan.RunPaths) {
			t.Errorf("RUNPATH %q, want the plan's run paths %v and no RPATH", runpath, plan.RunPaths)
		}
	})

	t.Run("second build is a no-op", func(t *testing.T) {
		again := build(t)
		if again.Steps != 0 || again.Reconfigured || len(again.Why) != 0 {
			t.Errorf("second build: %d steps, reconfigured %v, why %q", again.Steps, again.Reconfigured, again.Why)
		}
	})
}

// wantArchs reads every GPU's compute capability from nvidia-smi and turns
// "X.Y" into CMake's "XY", with the a suffix for 90 <= SM < 100 (the
// architecture-specific Hopper features MLX uses), sorted and deduplicated:
// what the resolver must give, worked out here on its own.
func wantArchs(t *testing.T, smi string) string {
	t.Helper()
	out := testutil.RunOK(t, nil, "", smi, "--query-gpu=compute_cap", "--format=csv,noheader")
	var nums []int
	for _, row := range strings.Fields(out) {
		major, minor, ok := strings.Cut(row, ".")
		n, err := strconv.Atoi(major + minor)
		if !ok || err != nil {
			t.Fatalf("nvidia-smi compute_cap row %q is not X.Y", row)
		}
		if !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	var archs []string
	for _, n := range nums {
		s := strconv.Itoa(n)
		if n >= 90 && n < 100 {
			s += "a"
		}
		archs = append(archs, s)
	}
	t.Logf("nvidia-smi compute_cap: %q -> %s", strings.Fields(out), strings.Join(archs, ";"))
	return strings.Join(archs, ";")
}

// needToolkit is testutil.NeedTools for a machine with a GPU but no CUDA toolkit.
func needToolkit(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("CI") == "" {
		t.Skipf("this machine has an NVIDIA GPU but no CUDA toolkit: %v", err)
	}
	t.Fatal(err)
}
