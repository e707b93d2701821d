package backends

import (
	"os"
	"path/filepath"
	"runtime"
)

// isDir reports whether p is an existing directory (following links).
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// isFile reports whether p is an existing regular file (following links).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// multiarch is Debian's library directory name for this machine, e.g.
// x86_64-linux-gnu; Debian's ROCm and CUDA packages install there.
func multiarch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64-linux-gnu"
	case "arm64":
		return "aarch64-linux-gnu"
	case "ppc64le":
		return "powerpc64le-linux-gnu"
	}
	return runtime.GOARCH + "-linux-gnu"
}

// hasLib reports whether dir holds lib<name>.so or a versioned lib<name>.so.N.
func hasLib(dir, name string) bool {
	if isFile(filepath.Join(dir, "lib"+name+".so")) {
		return true
	}
	m, _ := filepath.Glob(filepath.Join(dir, "lib"+name+".so.*"))
	return len(m) > 0
}
