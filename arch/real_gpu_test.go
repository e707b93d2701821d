package arch

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// TestCUDARealNvidiaSMI runs the real probe on a machine with NVIDIA GPUs.
// It is opt-in (MLXBUILD_TEST_REAL_GPU=1) because CI machines have no GPU;
// there (CI set) it checks the real no-GPU failure instead. The recorded
// output of a GPU run is a fixture the other tests use.
func TestCUDARealNvidiaSMI(t *testing.T) {
	env := func(k string) string {
		if k == EnvCUDA {
			return ""
		}
		return os.Getenv(k)
	}
	r, err := ResolveCUDA(context.Background(), Options{Env: env})
	if os.Getenv("MLXBUILD_TEST_REAL_GPU") == "" {
		if os.Getenv("CI") == "" {
			t.Skip("set MLXBUILD_TEST_REAL_GPU=1 on a machine with an NVIDIA GPU")
		}
		// CI has no NVIDIA GPU: the real probe on the real PATH must fail
		// clearly, naming the variable that chooses instead.
		var re *ResolveError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), EnvCUDA) || !strings.Contains(err.Error(), "nvidia-smi") {
			t.Fatalf("without a GPU: got %v, %v; want a *ResolveError naming nvidia-smi and %s", r, err, EnvCUDA)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	list, err := proc.Run(context.Background(), proc.Cmd{Path: "nvidia-smi", Args: []string{"-L"}})
	if err != nil {
		t.Fatal(err)
	}
	gpus := strings.Count(strings.TrimSpace(string(list.Stdout)), "\n") + 1
	want := "nvidia-smi rows 0"
	if gpus == 2 {
		want = "nvidia-smi rows 0,1"
	} else if gpus > 2 {
		want = "nvidia-smi rows 0-" + strconv.Itoa(gpus-1)
	}
	if r.Source != want {
		t.Errorf("source %q, want %q (nvidia-smi -L lists %d GPUs)", r.Source, want, gpus)
	}
	for _, a := range r.Targets {
		if err := validate(CUDA, a); err != nil {
			t.Error(err)
		}
	}
	t.Logf("resolved %s from %s", Join(r.Targets), r.Source)
}

// TestCheckRealCUDAObject builds a CUDA object with nvcc for sm_80 (cubin)
// and sm_90a (cubin and PTX) and checks it with the real cuobjdump. Opt-in
// like TestCUDARealNvidiaSMI; under CI it checks the no-toolkit report.
func TestCheckRealCUDAObject(t *testing.T) {
	if os.Getenv("MLXBUILD_TEST_REAL_GPU") == "" {
		if os.Getenv("CI") == "" {
			t.Skip("set MLXBUILD_TEST_REAL_GPU=1 on a machine with an NVIDIA GPU and the CUDA toolkit")
		}
		// CI has no CUDA toolkit: on the real PATH, a file with a CUDA fat
		// binary is reported as unreadable, never as "no GPU code".
		f := t.TempDir() + "/libk.so"
		if err := os.WriteFile(f, []byte("...\x00.nv_fatbin\x00..."), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Check(context.Background(), f, Options{}); err == nil || !strings.Contains(err.Error(), "cuobjdump was not found") {
			t.Fatalf("without a CUDA toolkit: %v; want cuobjdump named as missing", err)
		}
		return
	}
	o := Options{}
	nvcc, ok := o.findTool("nvcc", os.Getenv("CUDA_HOME")+"/bin")
	if !ok {
		nvcc, ok = o.findTool("nvcc", "/usr/local/cuda/bin")
	}
	if !ok {
		t.Fatal("nvcc not found in $CUDA_HOME/bin, PATH or /usr/local/cuda/bin")
	}
	dir := t.TempDir()
	src := dir + "/k.cu"
	if err := os.WriteFile(src, []byte("__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := dir + "/k.o"
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: nvcc, Args: []string{
		"-gencode", "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]", "-c", src, "-o", obj}}); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		switch k {
		case "PATH":
			return os.Getenv("PATH") + ":" + strings.TrimSuffix(nvcc, "/nvcc")
		case EnvCUDA:
			return ""
		}
		return os.Getenv(k)
	}
	rep, err := Check(context.Background(), obj, Options{Env: env})
	t.Logf("binary %+v, lines %q", rep.Binary, rep.Lines)
	if err != nil {
		t.Fatal(err)
	}
	if Join(rep.Binary.SASS) != "80;90a" || Join(rep.Binary.PTX) != "90a" {
		t.Errorf("cuobjdump listed SASS %v, PTX %v; want 80;90a and 90a", rep.Binary.SASS, rep.Binary.PTX)
	}
	env2 := func(k string) string {
		if k == EnvCUDA {
			return "120"
		}
		return env(k)
	}
	if _, err := Check(context.Background(), obj, Options{Env: env2}); err == nil || !strings.Contains(err.Error(), "rebuild with MLX_CUDA_ARCHITECTURES=120") {
		t.Errorf("against 120: %v", err)
	}
}
