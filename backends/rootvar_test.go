package backends

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// A toolchain root named by a relative path is refused (exit 2) before
// it is used, naming the variable, even where the folder is there, below
// the working directory: the build's programs run elsewhere.
func TestRelativeToolchainRootsAreRefused(t *testing.T) {
	rocm, cuda := fakeAMDRoot(t), fakeCUDA(t)
	t.Chdir(filepath.Dir(rocm))
	relROCm := filepath.Base(rocm)
	relCUDA, err := filepath.Rel(filepath.Dir(rocm), cuda)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, value string
		locate      func(map[string]string) error
	}{
		{"ROCM_PATH", relROCm, func(env map[string]string) error { _, err := LocateROCm(envMap(env)); return err }},
		{"CUDA_HOME", relCUDA, func(env map[string]string) error { _, err := LocateCUDA(envMap(env)); return err }},
	} {
		err := c.locate(map[string]string{c.name: c.value, "PATH": "/nonexistent"})
		want := c.name + "=" + c.value + " is relative; set an absolute path"
		if err == nil || fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: got %v (exit %d), want exit 2 saying %q", c.name, c.value, err, fail.ExitCode(err), want)
		}
	}
}
