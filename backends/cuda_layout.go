package backends

import (
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// cudaTargetNames are the folders under a CUDA toolkit's targets/ that
// hold a Go architecture's libraries: NVIDIA's x86-64 toolkits use
// x86_64-linux; its aarch64 server toolkits (GH200, GB10/DGX Spark, and
// Thor from CUDA 13) use sbsa-linux, its Jetson (L4T) ones aarch64-linux.
var cudaTargetNames = map[string][]string{
	"amd64":   {"x86_64-linux"},
	"arm64":   {"sbsa-linux", "aarch64-linux"},
	"ppc64le": {"ppc64le-linux"},
}

// cudaLibDirs are the folders of a toolkit at root that may hold
// libcudart for goarch, in the order they are tried: NVIDIA's lib64 (a
// link into targets/<arch>/lib), lib, Debian's lib/<multiarch> (its
// nvidia-cuda-toolkit installs under /usr), then targets/<arch>/lib
// itself for a toolkit without the lib64 link.
func cudaLibDirs(root, goarch string) []string {
	dirs := []string{filepath.Join(root, "lib64"), filepath.Join(root, "lib"), filepath.Join(root, "lib", multiarch.For(goarch))}
	for _, t := range cudaTargetNames[goarch] {
		dirs = append(dirs, filepath.Join(root, "targets", t, "lib"))
	}
	return dirs
}
