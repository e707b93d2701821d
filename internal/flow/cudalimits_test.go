package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// newCUDAProject is the example project with cuda declared, built with the
// stand-in CUDA 13.0 toolkit (CI has no CUDA); it returns the project and
// the toolkit's root.
func newCUDAProject(t *testing.T) (*project, string) {
	t.Helper()
	p := newProject(t, "")
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  rocm:\n    overlay: patches-rocm\n  cuda: {}\n")
	root := testutil.FakeCUDA13(t)
	// The libraries the link plan looks for before configure (names only).
	for _, lib := range []string{"cudart", "cublas", "cublasLt", "cufft", "cusolver", "cudnn", "nvrtc"} {
		testutil.WriteFile(t, filepath.Join(root, "lib64", "lib"+lib+".so"), "")
	}
	testutil.WriteFile(t, filepath.Join(root, "lib64", "stubs", "libcuda.so"), "")
	t.Setenv("CUDA_HOME", root)
	for _, v := range []string{"CUDAHOSTCXX", "CUDAFLAGS", "MLX_CUDA_ARCHITECTURES"} {
		t.Setenv(v, "")
	}
	return p, root
}

// TestCUDALimitsRefuseBeforeConfigure: what CUDA 13's nvcc cannot do is
// bad configuration found before configure, not an hour into the build:
// an architecture it dropped (70, Volta), said with the nearest it
// compiles, and a host compiler it refuses, said with CUDAHOSTCXX and
// -allow-unsupported-compiler. plan:cuda says the build would be refused;
// build:cuda refuses it, exit 2, and CMake never runs. What GB10 measures
// (121a-real;121) passes these checks.
func TestCUDALimitsRefuseBeforeConfigure(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja")
	p, root := newCUDAProject(t)
	ctx := context.Background()
	refused := func(t *testing.T, want string) {
		t.Helper()
		var stdout bytes.Buffer
		if err := flow.Plan(ctx, flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:cuda", "cuda"); err != nil {
			t.Fatal(err)
		}
		if line := "would refuse the build before configure (exit 2): " + want + "\n"; !strings.HasSuffix(stdout.String(), line) {
			t.Errorf("plan:cuda ends:\n%s\nwant its last line:\n%s", lastLines(stdout.String(), 2), line)
		}
		var stderr bytes.Buffer
		_, err := flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cuda")
		if err == nil || err.Error() != want || fail.KindOf(err) != fail.Config {
			t.Errorf("build:cuda: %v (kind %v), want, exit 2:\n%s", err, fail.KindOf(err), want)
		}
		if _, err := os.Stat(filepath.Join(p.Cache, "cuda", "build", "CMakeCache.txt")); !os.IsNotExist(err) {
			t.Errorf("CMake ran for a build nvcc refuses: %v", err)
		}
	}

	t.Run("dropped architecture", func(t *testing.T) {
		t.Setenv("MLX_CUDA_ARCHITECTURES", "70;90a")
		refused(t, "70 is not supported by the CUDA 13.0.88 toolkit at "+root+" (nvcc --list-gpu-code has no sm_70); set MLX_CUDA_ARCHITECTURES to a target it supports (nearest: 75, 80), or CUDA_HOME to a CUDA that supports 70")
	})
	t.Run("refused host compiler", func(t *testing.T) {
		t.Setenv("MLX_CUDA_ARCHITECTURES", "121a-real;121")
		gxx := testutil.FakeGXX(t, "15")
		t.Setenv("CUDAHOSTCXX", gxx)
		refused(t, "the host compiler CUDAHOSTCXX="+gxx+" is refused by nvcc of the CUDA 13.0.88 toolkit at "+root+
			" (unsupported GNU version! gcc versions later than 14 are not supported!); set CUDAHOSTCXX to a g++ this nvcc supports, or add -allow-unsupported-compiler to CMAKE_CUDA_FLAGS (CUDAFLAGS, or a spec define) at your own risk")
	})
	t.Run("GB10's architectures", func(t *testing.T) {
		t.Setenv("MLX_CUDA_ARCHITECTURES", "121a-real;121")
		t.Setenv("CUDAHOSTCXX", testutil.FakeGXX(t, "13"))
		var stdout bytes.Buffer
		if err := flow.Plan(ctx, flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:cuda", "cuda"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stdout.String(), "would refuse") {
			t.Errorf("plan:cuda refuses what CUDA 13 compiles:\n%s", stdout.String())
		}
	})
}

// TestDoctorCUDALimits: doctor -backend=cuda checks what a build checks
// before configure: the host compiler and every architecture against
// nvcc, each gap a failure that names what to set.
func TestDoctorCUDALimits(t *testing.T) {
	testutil.NeedTools(t, "cmake")
	p, root := newCUDAProject(t)
	findings := func(t *testing.T) map[string]flow.Finding {
		t.Helper()
		fs, _, err := flow.Doctor(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "cuda")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]flow.Finding{}
		for _, f := range fs {
			if f.Backend == "cuda" {
				got[f.What] = f
			}
		}
		return got
	}
	gxx := testutil.FakeGXX(t, "15")
	t.Setenv("CUDAHOSTCXX", gxx)
	t.Setenv("MLX_CUDA_ARCHITECTURES", "70")
	got := findings(t)
	if h := got["host compiler"]; h.OK || !strings.Contains(h.Detail, "CUDAHOSTCXX="+gxx+" is refused by nvcc of the CUDA 13.0.88 toolkit at "+root) || !strings.Contains(h.Fix, "CUDAHOSTCXX") {
		t.Errorf("host compiler g++ 15: %+v, want a failure naming CUDAHOSTCXX", h)
	}
	if a := got["architectures"]; a.OK || !strings.HasPrefix(a.Detail, "70 is not supported by the CUDA 13.0.88 toolkit") || !strings.Contains(a.Detail, "nearest: 75, 80") {
		t.Errorf("architectures 70: %+v, want a failure with the nearest supported", a)
	}

	t.Setenv("CUDAHOSTCXX", testutil.FakeGXX(t, "13"))
	t.Setenv("MLX_CUDA_ARCHITECTURES", "121a-real;121")
	got = findings(t)
	if h, a := got["host compiler"], got["architectures"]; !h.OK || !a.OK || !strings.HasPrefix(a.Detail, "121;121a-real ") && !strings.HasPrefix(a.Detail, "121a-real;121 ") {
		t.Errorf("g++ 13 and 121a-real;121: %+v, %+v, want both accepted", h, a)
	}
}
