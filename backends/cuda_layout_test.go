package backends

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestCUDALibDirsFollowTheHost: the folders tried for libcudart follow
// the architecture, so an aarch64 toolkit's layouts (NVIDIA's sbsa-linux
// for GH200/GB10, Jetson's aarch64-linux, Debian's aarch64-linux-gnu)
// are found, and an x86-64 folder is never tried on arm64.
func TestCUDALibDirsFollowTheHost(t *testing.T) {
	root := "/usr/local/cuda"
	for _, tt := range []struct {
		goarch   string
		want     []string
		mustLack string
	}{
		{"amd64", []string{"lib64", "lib", "lib/x86_64-linux-gnu", "targets/x86_64-linux/lib"}, "sbsa-linux"},
		{"arm64", []string{"lib64", "lib", "lib/aarch64-linux-gnu", "targets/sbsa-linux/lib", "targets/aarch64-linux/lib"}, "x86_64"},
	} {
		var want []string
		for _, w := range tt.want {
			want = append(want, filepath.Join(root, w))
		}
		got := cudaLibDirs(root, tt.goarch)
		if !slices.Equal(got, want) {
			t.Errorf("cudaLibDirs(%s) = %v, want %v", tt.goarch, got, want)
		}
	}
}

// TestLocateCUDATargetsLayout: a toolkit whose libcudart is only under
// targets/<this host's folder>/lib (no lib64 link) is found there.
func TestLocateCUDATargetsLayout(t *testing.T) {
	names := cudaTargetNames[runtime.GOARCH]
	if len(names) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI runs on amd64 or arm64, where CUDA has a targets/ folder; %s has none in cudaTargetNames", runtime.GOARCH)
		}
		t.Skipf("CUDA ships no toolkit for %s", runtime.GOARCH)
	}
	root := fakeCUDA(t)
	if err := os.RemoveAll(filepath.Join(root, "lib64")); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(root, "targets", names[0], "lib")
	writeFile(t, filepath.Join(lib, "libcudart.so.12"), "", 0o644)
	c, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": root, "PATH": "/nonexistent"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.LibDir != lib {
		t.Errorf("LibDir = %s, want %s", c.LibDir, lib)
	}
}
