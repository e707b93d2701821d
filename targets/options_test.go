package targets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// useForTest sets the options of Use for one test and a map for the
// environment, and puts the zero options back after it.
func useForTest(t *testing.T, env map[string]string) (stdout, stderr *bytes.Buffer) {
	t.Helper()
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	Use(WithDir(t.TempDir()), WithEnv(func(k string) string { return env[k] }), WithOutput(stdout, stderr))
	t.Cleanup(func() {
		optMu.Lock()
		opts = flow.Options{}
		optMu.Unlock()
	})
	return stdout, stderr
}

// TestArchTargetsUseTheOptions: arch:rocm and arch:cuda print where the
// parent magefile's WithOutput says, reading WithEnv's variables.
func TestArchTargetsUseTheOptions(t *testing.T) {
	ctx := context.Background()
	stdout, stderr := useForTest(t, map[string]string{"MLX_ROCM_ARCHITECTURES": "gfx1030;gfx90a", "MLX_CUDA_ARCHITECTURES": "90a"})
	if err := (Arch{}).Rocm(ctx); err != nil {
		t.Fatal(err)
	}
	if err := (Arch{}).Cuda(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := stdout.String(), "gfx1030;gfx90a\n90a\n"; got != want {
		t.Errorf("stdout given to WithOutput holds %q, want %q", got, want)
	}
	for _, want := range []string{"arch: rocm targets from env MLX_ROCM_ARCHITECTURES", "gfx90a           CDNA2, wave64", "arch: cuda targets from env MLX_CUDA_ARCHITECTURES"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr given to WithOutput lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestArchCheckUsesTheOptions: arch:check compares a real HIP object
// (hipcc, gfx1030) with the GPUs WithEnv's MLX_ROCM_ARCHITECTURES names,
// not with this machine's (none here), and prints to WithOutput's stdout.
func TestArchCheckUsesTheOptions(t *testing.T) {
	testutil.NeedTools(t, "hipcc")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "")
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "k.hip"), filepath.Join(dir, "k.o")
	if err := os.WriteFile(src, []byte("#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: "hipcc", Args: []string{"--offload-arch=gfx1030", "-c", src, "-o", obj}}); err != nil {
		t.Fatal(err)
	}
	stdout, _ := useForTest(t, map[string]string{"MLX_ROCM_ARCHITECTURES": "gfx1030", "MLXBUILD_KFD_TOPOLOGY": filepath.Join(dir, "no-kfd")})
	if err := (Arch{}).Check(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
	if want := "the requested targets are gfx1030 (MLX_ROCM_ARCHITECTURES)"; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout given to WithOutput lacks %q:\n%q", want, stdout.String())
	}
}

// TestBenchTargetsUseTheOptions: bench:compare writes its comparison to
// WithOutput's stdout and its JSON report where WithEnv's MLXBUILD_REPORT
// says; bench:traces prints there too.
func TestBenchTargetsUseTheOptions(t *testing.T) {
	t.Setenv("MLXBUILD_REPORT", "")
	report := filepath.Join(t.TempDir(), "compare.json")
	stdout, _ := useForTest(t, map[string]string{"MLXBUILD_REPORT": "json:" + report})
	data := filepath.Join("..", "internal", "benchcsv", "testdata")
	if err := (Bench{}).Compare(filepath.Join(data, "before.csv"), filepath.Join(data, "after.csv"), nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "Qwen3-0.6B-4bit") {
		t.Errorf("stdout given to WithOutput lacks the comparison:\n%s", stdout.String())
	}
	if b, err := os.ReadFile(report); err != nil || !bytes.Contains(b, []byte("Qwen3-0.6B-4bit")) {
		t.Errorf("MLXBUILD_REPORT from WithEnv wrote no report at %s: %v", report, err)
	}
	stdout.Reset()
	trace := filepath.Join("..", "internal", "logittrace", "testdata", "standin.tsv")
	if err := (Bench{}).Traces(trace, trace, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "perplexity") {
		t.Errorf("stdout given to WithOutput lacks the trace comparison:\n%s", stdout.String())
	}
}

// TestGpuIdleUsesTheOptions: gpu:idle watches the KFD directory WithEnv's
// MLXBUILD_KFD_PROC names, and says so on WithOutput's stderr; one that is
// not a directory is a configuration error naming the variable.
func TestGpuIdleUsesTheOptions(t *testing.T) {
	t.Setenv("MLXBUILD_KFD_PROC", "")
	kfd := t.TempDir()
	_, stderr := useForTest(t, map[string]string{"MLXBUILD_KFD_PROC": kfd})
	quiet, wait := 1, time.Second
	_ = (Gpu{}).Idle(context.Background(), &quiet, &wait) // idle or not within a second: the machine is shared
	if want := "KFD: " + kfd; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr given to WithOutput lacks %q:\n%s", want, stderr.String())
	}

	file := filepath.Join(kfd, "not-a-dir")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	useForTest(t, map[string]string{"MLXBUILD_KFD_PROC": file})
	err := (Gpu{}).Idle(context.Background(), &quiet, &wait)
	if err == nil || mg.ExitStatus(err) != 2 || !strings.Contains(err.Error(), "MLXBUILD_KFD_PROC="+file) {
		t.Errorf("gpu:idle with MLXBUILD_KFD_PROC naming a file gave %v, want exit status 2 naming the variable", err)
	}
}
