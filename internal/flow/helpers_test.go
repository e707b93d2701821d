package flow_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// examplesDir is the repository's examples folder, relative to this package.
const examplesDir = "../../examples"

// examplePin is the commit the example stands for (the repository's own
// mlxbuild.yaml declares the same).
const examplePin = "81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1"

// project is a throw-away project that uses mlxbuild: a copy of the example
// (pristine source and overlays, so a test may edit them), its own project
// file, and its own cache.
type project struct {
	Dir   string // holds mlxbuild.yaml
	Mlx   string // the pristine checkout, used as it is (source.dir)
	Rocm  string // the ROCm overlay
	Cache string // MLXBUILD_CACHE
}

// newProject copies the example into a temporary directory and writes a
// project file whose rocm backend extends the built-in spec with rocmSpec
// (YAML; "" keeps the built-in one). It points MLXBUILD_CACHE at a fresh
// cache and clears the variables that would select another backend or
// project, for the rest of the test.
func newProject(t testing.TB, rocmSpec string) *project {
	t.Helper()
	return newProjectAt(t, t.TempDir(), rocmSpec)
}

// newProjectAt is newProject with the project and its cache under root.
func newProjectAt(t testing.TB, root, rocmSpec string) *project {
	t.Helper()
	p := &project{
		Dir:   filepath.Join(root, "app"),
		Mlx:   filepath.Join(root, "app", "third_party", "mlx"),
		Rocm:  filepath.Join(root, "app", "patches-rocm"),
		Cache: filepath.Join(root, "cache"),
	}
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "mlx"), p.Mlx)
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "patches-rocm"), p.Rocm)
	yaml := "source:\n  dir: third_party/mlx\n  pin: " + examplePin + "\n" +
		"backends:\n  rocm:\n    overlay: patches-rocm\n"
	if rocmSpec != "" {
		testutil.WriteFile(t, filepath.Join(p.Dir, "rocm.yaml"), rocmSpec)
		yaml += "    spec: rocm.yaml\n    merge: extend\n"
	}
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), yaml)
	t.Setenv("MLXBUILD_CACHE", p.Cache)
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	t.Setenv("NO_COLOR", "1")
	return p
}

// mtimes maps every file under dir whose name ends in one of suffixes to
// its modification time, keyed by the slash path relative to dir.
func mtimes(t testing.TB, dir string, suffixes ...string) map[string]time.Time {
	t.Helper()
	m := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, s := range suffixes {
			if strings.HasSuffix(p, s) {
				info, err := d.Info()
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				m[filepath.ToSlash(rel)] = info.ModTime()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// changed lists the keys whose time differs between before and after, or
// that only one of them has.
func changed(before, after map[string]time.Time) []string {
	var out []string
	for k, v := range after {
		if w, ok := before[k]; !ok || !w.Equal(v) {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// linkArgs splits a link plan's ldflags.txt into arguments. The plan writes
// them space separated on one line; paths with spaces are not supported by
// that format, and the tests' temporary paths have none.
func linkArgs(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// cpuOverlay gives p's cpu backend an overlay (patches-cpu) holding one
// file, rel of the pristine source with tail appended; it returns that
// file's path and the pristine content.
func cpuOverlay(t testing.TB, p *project, rel, tail string) (file, pristine string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(p.Mlx, rel))
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(p.Dir, "patches-cpu", rel)
	testutil.WriteFile(t, file, string(src)+tail)
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  cpu:\n    overlay: patches-cpu\n")
	return file, string(src)
}
