package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocateRoot: the root comes from the variable, else the first given
// root that holds the runtime header; none found names the variable.
func TestLocateRoot(t *testing.T) {
	cuda := t.TempDir()
	for _, f := range []string{filepath.Join(cuda, "include", "cuda_runtime.h")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(cuda, "lib64"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no nvcc
	none := func(string) string { return "" }
	info, err := LocateRoot("cuda", "CUDA_HOME", []string{filepath.Join(t.TempDir(), "absent"), cuda}, none)
	if err != nil || info.Root != cuda || info.Lib != filepath.Join(cuda, "lib64") || info.Env != "CUDA_HOME" {
		t.Fatalf("default roots: %+v %v, want root %s with lib64", info, err, cuda)
	}
	other := t.TempDir()
	_, err = LocateRoot("cuda", "CUDA_HOME", []string{cuda}, func(k string) string {
		if k == "CUDA_HOME" {
			return other
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "set CUDA_HOME") || !strings.Contains(err.Error(), filepath.Join(other, "include", "cuda_runtime.h")) {
		t.Errorf("CUDA_HOME without headers: %v, want the header and the variable named", err)
	}
}
