package compilecache_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// hipArch is the one target the test builds: every HIP compile costs about
// two seconds on CI's two cores, so one architecture keeps them few.
const hipArch = "gfx1030"

// examplePin is the commit the example stands for (the repository's own
// mlxbuild.yaml declares the same).
const examplePin = "81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1"

// projectFile is each checkout's mlxbuild.yaml: the repository's own,
// reduced to the ROCm backend, with ccache as the launcher. The remote is
// not here: it comes from MLXBUILD_LAUNCHER_REMOTE, as a team would set it.
const projectFile = `source:
  dir: examples/minimlx/mlx
  pin: ` + examplePin + `
deps_mirror: examples/minimlx/deps
backends:
  rocm:
    overlay: examples/minimlx/patches-rocm
    spec: examples/minimlx/rocm.yaml
    merge: extend
launcher: {tool: ccache}
`

// checkout is one copy of a project that uses mlxbuild, in its own
// directory, with its own cache (MLXBUILD_CACHE), so its tree, build
// directory and local ccache start empty and lie under other paths than
// any other checkout's.
type checkout struct {
	Root  string // holds mlxbuild.yaml
	Cache string // MLXBUILD_CACHE
}

// newCheckout copies the example's pristine source, ROCm overlay and spec
// to root and writes the project file.
func newCheckout(t testing.TB, root string) checkout {
	t.Helper()
	co := checkout{Root: root, Cache: filepath.Join(root, "target", "mlxbuild")}
	ex := filepath.Join(root, "examples", "minimlx")
	testutil.CopyTree(t, filepath.Join(exampleDir, "mlx"), filepath.Join(ex, "mlx"))
	testutil.CopyTree(t, filepath.Join(exampleDir, "patches-rocm"), filepath.Join(ex, "patches-rocm"))
	copyFile(t, filepath.Join(exampleDir, "rocm.yaml"), filepath.Join(ex, "rocm.yaml"))
	// The example's FetchContent dependency comes from this mirror, as in
	// the repository's own project file.
	testutil.CopyTree(t, filepath.Join(exampleDir, "deps"), filepath.Join(ex, "deps"))
	if err := os.WriteFile(filepath.Join(root, "mlxbuild.yaml"), []byte(projectFile), 0o644); err != nil {
		t.Fatal(err)
	}
	return co
}

// BackendDir is where mlxbuild keeps the checkout's ROCm tree, build
// directory and local ccache.
func (co checkout) BackendDir() string { return filepath.Join(co.Cache, "rocm") }

// needROCm skips (or fails in CI) unless Debian's ROCm toolchain, the build
// tools and ccache are here and the toolchain can compile hipArch.
func needROCm(t testing.TB) {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "c++", "hipcc", "ccache")
	rocm, err := backends.LocateROCm(os.Getenv)
	if err == nil {
		err = rocm.SupportsArch(hipArch)
	}
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("no usable ROCm toolchain: %v", err)
		}
		t.Fatal(err)
	}
}

// remote returns the environment a build gets: the launcher's remote (""
// turns the launcher off with MLXBUILD_LAUNCHER=none).
func remote(url string) map[string]string {
	if url == "" {
		return map[string]string{"MLXBUILD_LAUNCHER": "none"}
	}
	return map[string]string{"MLXBUILD_LAUNCHER_REMOTE": url}
}

// env is the environment job sees for this checkout: extra over the
// checkout's cache, hipArch, two jobs and no color, over this process's
// environment minus what would select another project, backend or
// launcher.
//
// Options.Env carries every variable mlxbuild itself reads; the children
// (cmake, ninja, ccache) get this process's environment plus what job adds
// (the launcher's CCACHE_* settings), and need nothing from the test.
func (co checkout) env(extra map[string]string) func(string) string {
	env := map[string]string{
		"MLXBUILD_CACHE":         co.Cache,
		"MLX_ROCM_ARCHITECTURES": hipArch,
		"MLXBUILD_JOBS":          "2",
		"NO_COLOR":               "1",
		"MLXBUILD_CONFIG":        "", "MLXBUILD_BACKENDS": "",
		"MLXBUILD_LAUNCHER": "", "MLXBUILD_LAUNCHER_REMOTE": "",
		"MLXBUILD_LAUNCHER_USER": "", "MLXBUILD_LAUNCHER_PASSWORD": "",
		"CARGO_FEATURE_ROCM": "", "CARGO_FEATURE_CUDA": "", "CARGO_FEATURE_METAL": "", "CARGO_FEATURE_CPU": "",
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// build runs flow.Build for the checkout's ROCm backend, as `mage
// build:rocm` in its root would, with extra in the environment (see env).
// Ninja's progress goes to progress too (may be nil). It returns the
// summary and the compiles Ninja ran, by language.
func (co checkout) build(t testing.TB, ctx context.Context, extra map[string]string, progress io.Writer) (*flow.Summary, map[string]int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	var errOut io.Writer = &stderr
	if progress != nil {
		errOut = io.MultiWriter(&stderr, progress)
	}
	o := flow.Options{Dir: co.Root, Env: co.env(extra), Stdout: &stdout, Stderr: errOut}
	sum, err := flow.Build(ctx, o, "rocm")
	if err != nil {
		t.Fatalf("build:rocm in %s: %v\n%s", co.Root, err, stderr.String())
	}
	for _, lib := range []string{"libmlx.a", "libmlx_rocm_kernels.a"} {
		if _, err := os.Stat(filepath.Join(co.BackendDir(), "build", lib)); err != nil {
			t.Fatalf("after %d steps: %v\n%s", sum.Steps, err, stderr.String())
		}
	}
	return sum, compilesIn(stderr.Bytes())
}

// compileLine is a progress line of flow.Build for one compile.
var compileLine = regexp.MustCompile(`(?m)^\[\d+/\d+\] (C|CXX|HIP|CUDA) `)

// compilesIn counts the compiles in Ninja's progress lines, by language.
func compilesIn(progress []byte) map[string]int {
	n := map[string]int{}
	for _, m := range compileLine.FindAllSubmatch(progress, -1) {
		n[string(m[1])]++
	}
	return n
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err == nil {
		err = os.WriteFile(dst, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
