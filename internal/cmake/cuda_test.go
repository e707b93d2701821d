package cmake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuildCUDA builds the example with its CUDA overlay with the real nvcc,
// shows the code object's architecture with cuobjdump, and on a machine with
// an NVIDIA GPU runs the consumer, which launches the kernel and checks every
// element. Without a CUDA toolkit (CI, this project's usual machine) it is
// reported as not run; the GPU machine runs it (docs/notes/build.md).
func TestBuildCUDA(t *testing.T) {
	cuda, err := backends.LocateCUDA(os.Getenv)
	if err != nil {
		t.Skipf("not run: %v", err)
	}
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	archs := os.Getenv("MLX_CUDA_ARCHITECTURES")
	if archs == "" {
		archs = "native"
	}
	t.Logf("%s, architectures %s", cuda, archs)
	ctx := context.Background()
	work := t.TempDir()
	tree := filepath.Join(work, "tree")
	testutil.CopyTree(t, filepath.Join(exampleDir, "mlx"), tree)
	testutil.CopyTree(t, filepath.Join(exampleDir, "patches-cuda", "mlx"), filepath.Join(tree, "mlx"))
	build := filepath.Join(work, "build")
	var cfgLog bytes.Buffer
	err = Configure(ctx, ConfigureOptions{Source: tree, Build: build, Log: &cfgLog, Defines: map[string]string{
		"MLX_BUILD_CUDA":           "ON",
		"CMAKE_CUDA_COMPILER":      cuda.NVCC,
		"CMAKE_CUDA_ARCHITECTURES": archs,
	}})
	if err != nil {
		t.Fatalf("%v\n%s", err, cfgLog.String())
	}
	var prog bytes.Buffer
	res, err := Build(ctx, BuildOptions{Dir: build, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", prog.String())
	if !strings.Contains(prog.String(), "] CUDA mlx/backend/cuda/binary.cu\n") || res.Steps < 8 {
		t.Errorf("steps %v", stepsOf(res))
	}
	kernels := filepath.Join(build, "libmlx_cuda_kernels.a")
	if cuobjdump := filepath.Join(cuda.BinDir, "cuobjdump"); isExec(cuobjdump) {
		out := testutil.RunOK(t, nil, "", cuobjdump, "--list-elf", kernels)
		t.Logf("cuobjdump --list-elf %s:\n%s", kernels, out)
		if !strings.Contains(out, "sm_") {
			t.Errorf("no sm_ code object in %s", kernels)
		}
		for _, a := range strings.Split(archs, ";") {
			if a != "native" && !strings.Contains(out, "sm_"+a) {
				t.Errorf("no sm_%s code object in %s", a, kernels)
			}
		}
	}

	exe := filepath.Join(work, "consumer")
	testutil.RunOK(t, nil, "", "c++", "-std=c++17", "-DMLX_CONSUMER_CUDA", "-I", tree,
		filepath.Join(exampleDir, "..", "cxx-consumer", "main.cpp"),
		"-L", build, "-lmlx", "-lmlx_cuda_kernels", "-L", cuda.LibDir, "-lcudart", "-Wl,-rpath,"+cuda.LibDir, "-o", exe)
	t.Logf("readelf -d consumer:\n%s", testutil.RunOK(t, nil, "", "readelf", "-d", exe))
	if out, err := exec.Command("nvidia-smi", "-L").CombinedOutput(); err != nil || !strings.Contains(string(out), "GPU ") {
		t.Logf("the consumer is not run: nvidia-smi finds no GPU (%v)", err)
	} else {
		cmd := exec.Command(exe)
		cmd.Env = testutil.EnvWithout("LD_LIBRARY_PATH")
		out, err := cmd.CombinedOutput()
		t.Logf("consumer (LD_LIBRARY_PATH unset):\n%s", out)
		if err != nil || !strings.Contains(string(out), "matches the CPU") {
			t.Errorf("consumer failed: %v", err)
		}
	}

	// nvcc's error format: file(line): error: message.
	bad := filepath.Join(tree, "mlx/backend/cuda/binary.cu")
	src, _ := os.ReadFile(bad)
	planted := strings.Replace(string(src), "out[i] = a[i] + b[i];", "out[i] = a[i] + mlxbuild_planted[i];", 1)
	if err := os.WriteFile(bad, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Build(ctx, BuildOptions{Dir: build})
	var be *BuildError
	if !errors.As(err, &be) || !strings.HasPrefix(res.FirstError, bad+":") || !strings.Contains(res.FirstError, "mlxbuild_planted") {
		t.Errorf("planted nvcc error: FirstError %q, err %v", res.FirstError, err)
	}
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode()&0o111 != 0
}
