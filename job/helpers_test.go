package job_test

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/proc"
)

// examplesDir is the repository's examples folder, relative to this package.
const examplesDir = "../examples"

// examplePin is the commit the example stands for (the repository's own
// mlxbuild.yaml declares the same).
const examplePin = "81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1"

// needTools skips on a developer machine that lacks one of names, and fails
// in CI, where .ci/run installs everything.
func needTools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is not installed (go run mage.go setup installs it); CI fails here", n)
			}
			t.Fatalf("%s is not installed: CI must install it", n)
		}
	}
}

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
	root := t.TempDir()
	p := &project{
		Dir:   filepath.Join(root, "app"),
		Mlx:   filepath.Join(root, "app", "third_party", "mlx"),
		Rocm:  filepath.Join(root, "app", "patches-rocm"),
		Cache: filepath.Join(root, "cache"),
	}
	copyTree(t, filepath.Join(examplesDir, "minimlx", "mlx"), p.Mlx)
	copyTree(t, filepath.Join(examplesDir, "minimlx", "patches-rocm"), p.Rocm)
	yaml := "source:\n  dir: third_party/mlx\n  pin: " + examplePin + "\n" +
		"backends:\n  rocm:\n    overlay: patches-rocm\n"
	if rocmSpec != "" {
		writeFile(t, filepath.Join(p.Dir, "rocm.yaml"), rocmSpec)
		yaml += "    spec: rocm.yaml\n    merge: extend\n"
	}
	writeFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), yaml)
	t.Setenv("MLXBUILD_CACHE", p.Cache)
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	t.Setenv("NO_COLOR", "1")
	return p
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files of src into dst, keeping relative paths.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, in); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runOK runs a program with explicit arguments (no shell) and returns its
// stdout and stderr together, failing the test when it fails. env nil means
// this process's environment.
func runOK(t testing.TB, env []string, dir, name string, args ...string) string {
	t.Helper()
	out, err := runCmd(env, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func runCmd(env []string, dir, name string, args ...string) (string, error) {
	var both bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := proc.Run(ctx, proc.Cmd{Path: name, Args: args, Dir: dir, Env: env, Stdout: &both, Stderr: &both})
	return both.String(), err
}

// envWithout returns this process's environment minus the named variables.
func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, n := range names {
			if strings.HasPrefix(kv, n+"=") {
				keep = false
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
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
