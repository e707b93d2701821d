package gpurun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fakeSMI writes an nvidia-smi into dir/bin that checks it was asked for
// -L, prints stdout and exits with code.
func fakeSMI(t *testing.T, dir, stdout string, code int) string {
	t.Helper()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(out, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\n[ \"$*\" = -L ] || { echo \"unexpected arguments: $*\" >&2; exit 3; }\ncat '" + out + "'\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindGPUs(t *testing.T) {
	h200, err := os.ReadFile(filepath.Join("testdata", "nvidia-smi-L-h200.txt"))
	if err != nil {
		t.Fatal(err)
	}
	mig := "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a0d)\n" +
		"  MIG 1g.5gb      Device  0: (UUID: MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f)\n" +
		"GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-b1028956-cfa2-0990-bf4a-5da9abb51763)\n"
	cases := []struct {
		name, stdout string
		code         int
		want         int // GPUs found; -1 = ErrNoGPU
		why          string
	}{
		{"H200 recorded", string(h200), 0, 1, ""},
		{"MIG lines do not count", mig, 0, 2, ""},
		{"no driver", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n", 9, -1, "exit status 9"},
		{"no devices", "No devices were found\n", 6, -1, "No devices were found"},
		{"empty list", "", 0, -1, "listed no GPU (no output)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := fakeSMI(t, t.TempDir(), c.stdout, c.code)
			g, err := FindGPUs(context.Background(), envOf(map[string]string{"PATH": "/nonexistent:" + bin}))
			if c.want < 0 {
				if !errors.Is(err, ErrNoGPU) || !strings.Contains(err.Error(), c.why) {
					t.Fatalf("err = %v, want ErrNoGPU saying %q", err, c.why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Lines) != c.want || g.Tool != filepath.Join(bin, "nvidia-smi") || !strings.HasPrefix(g.Lines[0], "GPU 0: NVIDIA ") {
				t.Errorf("got %+v, want %d GPUs from %s", g, c.want, bin)
			}
		})
	}
}

func TestFindGPUsLookup(t *testing.T) {
	home := t.TempDir()
	onPath := fakeSMI(t, t.TempDir(), "", 0) // lists nothing: must not be asked
	inHome := fakeSMI(t, home, "GPU 0: NVIDIA H200 (UUID: GPU-0)\n", 0)
	g, err := FindGPUs(context.Background(), envOf(map[string]string{"CUDA_HOME": home, "PATH": onPath}))
	if err != nil || g.Tool != filepath.Join(inHome, "nvidia-smi") {
		t.Errorf("CUDA_HOME first: %+v, %v", g, err)
	}
	_, err = FindGPUs(context.Background(), envOf(map[string]string{"PATH": ""}))
	if !errors.Is(err, ErrNoGPU) || !strings.Contains(err.Error(), "not in $CUDA_HOME/bin or on PATH") {
		t.Errorf("no nvidia-smi: %v", err)
	}
}

func TestReadLdflags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ldflags.txt")
	line := "/c/cuda/build/libmlx.a /c/cuda/build/libmlx_cuda_kernels.a -L/usr/local/cuda/lib64 -lcudart -lstdc++ -Wl,-rpath,/usr/local/cuda/lib64\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	args, err := ReadLdflags(path)
	want := []string{"/c/cuda/build/libmlx.a", "/c/cuda/build/libmlx_cuda_kernels.a", "-L/usr/local/cuda/lib64", "-lcudart", "-lstdc++", "-Wl,-rpath,/usr/local/cuda/lib64"}
	if err != nil || !slices.Equal(args, want) {
		t.Errorf("ReadLdflags = %q, %v", args, err)
	}
	if err := os.WriteFile(path, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLdflags(path); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := ReadLdflags(filepath.Join(dir, "missing.txt")); err == nil || !strings.Contains(err.Error(), "run build:<backend> first") {
		t.Errorf("missing file: %v", err)
	}
}
