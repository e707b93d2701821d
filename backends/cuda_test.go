package backends

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nvccVersion is what CUDA 12.4's nvcc --version prints.
const nvccVersion = `nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2024 NVIDIA Corporation
Built on Thu_Mar_28_02:18:24_PDT_2024
Cuda compilation tools, release 12.4, V12.4.131
Build cuda_12.4.r12.4/compiler.34097967_0
`

// fakeCUDA lays out a toolkit whose nvcc replays the recorded output; this
// machine has no CUDA (the GPU machine's test runs the real one).
func fakeCUDA(t *testing.T) string {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "bin", "nvcc"), "#!/bin/sh\ncat <<'EOF'\n"+nvccVersion+"EOF\n", 0o755)
	writeFile(t, filepath.Join(root, "lib64", "libcudart.so.12"), "", 0o644)
	return root
}

func TestLocateCUDAHome(t *testing.T) {
	root := fakeCUDA(t)
	c, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": root, "PATH": "/nonexistent"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.version.String() != "12.4.131" || c.from != "CUDA_HOME" || c.LibDir != filepath.Join(root, "lib64") || c.NVCC != filepath.Join(root, "bin", "nvcc") {
		t.Errorf("got %+v", c)
	}
}

func TestLocateCUDAFromPath(t *testing.T) {
	root := fakeCUDA(t)
	old := defaultCUDARoot
	defaultCUDARoot = filepath.Join(t.TempDir(), "no-cuda")
	defer func() { defaultCUDARoot = old }()
	c, err := LocateCUDA(envMap(map[string]string{"PATH": "/nonexistent:" + filepath.Join(root, "bin")}))
	if err != nil {
		t.Fatal(err)
	}
	if c.from != "PATH" || c.root != root {
		t.Errorf("From=%s Root=%s, want PATH and %s", c.from, c.root, root)
	}
	_, err = LocateCUDA(envMap(map[string]string{"PATH": "/nonexistent"}))
	if err == nil || !strings.Contains(err.Error(), "CUDA_HOME") {
		t.Errorf("no toolkit anywhere: %v", err)
	}
}

func TestLocateCUDAHomeNotAToolkit(t *testing.T) {
	dir := t.TempDir()
	_, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": dir}))
	if err == nil || !strings.Contains(err.Error(), "CUDA_HOME="+dir) {
		t.Errorf("want an error naming CUDA_HOME, got %v", err)
	}
}

// TestLocateCUDAReal locates the machine's real CUDA toolkit (the GPU
// machine). CI has none (Debian's main archive carries no CUDA): there the
// real search must fail naming CUDA_HOME; elsewhere it is reported as not run.
func TestLocateCUDAReal(t *testing.T) {
	c, err := LocateCUDA(envMap(map[string]string{"PATH": "/usr/bin:/bin:" + filepath.Join(defaultCUDARoot, "bin")}))
	if noRealCUDA(t, c, err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.version.Segments()[0] < 11 || !hasLib(c.LibDir, "cudart") {
		t.Errorf("got %s, LibDir %s", c, c.LibDir)
	}
	t.Logf("%s, nvcc %s, lib %s", c, c.NVCC, c.LibDir)
}

// noRealCUDA says whether this machine lacks a real CUDA toolkit (no nvcc
// on PATH or under the default root). Outside CI that test is reported as
// not run; under CI (Debian carries no CUDA) the real search must have
// failed naming CUDA_HOME, which it checks.
func noRealCUDA(t *testing.T, c *cudaToolkit, err error) bool {
	t.Helper()
	if _, lerr := exec.LookPath("nvcc"); lerr == nil || isExecutable(filepath.Join(defaultCUDARoot, "bin", "nvcc")) {
		return false
	}
	if os.Getenv("CI") == "" {
		t.Skip("not run: no CUDA toolkit on this machine")
	}
	if err == nil || !strings.Contains(err.Error(), "CUDA_HOME") {
		t.Fatalf("no toolkit on this machine, yet LocateCUDA gave %v, %v; want an error naming CUDA_HOME", c, err)
	}
	return true
}
