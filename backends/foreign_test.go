package backends

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// foreignELF writes an executable ELF header for a machine that is not
// this host's and that no binfmt_misc handler here runs (SPARC V9, or
// x86-64 on an arm64 host without one): the kernel refuses it with
// "exec format error", as it refuses an x86-64 nvcc on a GB10.
func foreignELF(t *testing.T, path string) {
	t.Helper()
	hdr := make([]byte, 64)
	copy(hdr, "\x7fELF\x02\x01\x01")
	hdr[16] = 2  // ET_EXEC
	hdr[18] = 43 // EM_SPARCV9
	hdr[20] = 1  // EV_CURRENT, as e_ident says
	if runtime.GOARCH == "sparc64" {
		hdr[18] = 62 // EM_X86_64
	}
	writeFile(t, path, string(hdr), 0o755)
}

// TestLocateCUDAForeignToolkit: a CUDA_HOME whose nvcc is built for
// another machine is one line that says so, names this host and
// CUDA_HOME, and says what to install or register.
func TestLocateCUDAForeignToolkit(t *testing.T) {
	root := fakeCUDA(t)
	nvcc := filepath.Join(root, "bin", "nvcc")
	if err := os.Remove(nvcc); err != nil {
		t.Fatal(err)
	}
	foreignELF(t, nvcc)
	_, err := LocateCUDA(envMap(map[string]string{"CUDA_HOME": root, "PATH": "/nonexistent"}))
	if err == nil {
		t.Fatal("a foreign nvcc was accepted")
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"CUDA_HOME=" + root, nvcc + " is a program for ", "this host is " + strings.TrimSuffix(hostTuple(), "-linux-gnu"), "binfmt_misc"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
}

// hostTuple is this host's multiarch tuple, as the error names it.
func hostTuple() string { return multiarch.Host() }
