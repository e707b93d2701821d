package arch

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// envOptions gives MLX_ROCM_ARCHITECTURES / MLX_CUDA_ARCHITECTURES = v and
// probes that find nothing at once (no KFD topology, no rocminfo or
// nvidia-smi on PATH), so whatever resolves comes from the variable.
func envOptions(name, v, dir string) Options {
	return Options{Env: func(k string) string {
		switch k {
		case name:
			return v
		case envKFD:
			return dir + "/no-topology"
		case "PATH":
			return dir
		case envProbeTimeout:
			return "1s"
		}
		return ""
	}}
}

// FuzzArchEnv: a set architecture variable either resolves, from the
// variable alone, to a non-empty sorted list of valid names without
// duplicates that reads back the same through Split and Join (what
// reaches CMake), or is a configuration error (exit status 2) naming the
// variable. Seeds: testdata/fuzz/FuzzArchEnv.
func FuzzArchEnv(f *testing.F) {
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, v string, cuda bool) {
		backend, name, resolve := ROCm, envROCm, ResolveROCm
		if cuda {
			backend, name, resolve = CUDA, EnvCUDA, ResolveCUDA
		}
		if strings.TrimSpace(v) == "" {
			return // unset: the probes decide
		}
		r, err := resolve(context.Background(), envOptions(name, v, dir))
		if err != nil {
			if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), name) {
				t.Fatalf("%s=%q: want a configuration error naming the variable, got %T %v", name, v, err, err)
			}
			return
		}
		if r.Source != "env "+name || len(r.Targets) == 0 {
			t.Fatalf("%s=%q resolved to %q from %q", name, v, r.Targets, r.Source)
		}
		for i, a := range r.Targets {
			if err := validate(backend, a); err != nil {
				t.Fatalf("%s=%q gave invalid %q: %v", name, v, a, err)
			}
			if i > 0 && r.Targets[i-1] == a {
				t.Fatalf("%s=%q: %q twice", name, v, a)
			}
		}
		if back := Split(Join(r.Targets)); !reflect.DeepEqual(back, r.Targets) {
			t.Fatalf("%q joins and splits back as %q", r.Targets, back)
		}
	})
}
