package launcher_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/cmakebuild"
	"github.com/mlxbuild/mlxbuild/launcher"
	"github.com/mlxbuild/mlxbuild/toolchain"
)

// hipArch is the one target the test builds: every HIP compile costs about
// two seconds on CI's two cores, so one architecture keeps them few.
const hipArch = "gfx1030"

// checkout is one copy of the example in its own directory, laid out as
// mlxbuild lays out a project's cache (<root>/target/mlxbuild/rocm/...).
type checkout struct {
	Root       string
	BackendDir string
	Tree       string
	Build      string
}

// newCheckout copies the example to root and materializes the ROCm tree
// (pristine minimlx with patches-rocm over it) as mlxbuild would.
func newCheckout(t testing.TB, root string) checkout {
	t.Helper()
	backend := filepath.Join(root, "target", "mlxbuild", "rocm")
	co := checkout{Root: root, BackendDir: backend, Tree: filepath.Join(backend, "tree"), Build: filepath.Join(backend, "build")}
	copyTree(t, filepath.Join(exampleDir, "mlx"), co.Tree)
	copyTree(t, filepath.Join(exampleDir, "patches-rocm", "mlx"), filepath.Join(co.Tree, "mlx"))
	return co
}

// needROCm returns Debian's ROCm toolchain, checked for hipArch.
func needROCm(t testing.TB) *toolchain.ROCm {
	t.Helper()
	needTools(t, "cmake", "ninja", "c++", "hipcc", "ccache")
	rocm, err := toolchain.LocateROCm(os.Getenv)
	if err == nil {
		err = rocm.SupportsArch(hipArch)
	}
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("no usable ROCm toolchain: %v", err)
		}
		t.Fatal(err)
	}
	return rocm
}

// build configures and builds a checkout's ROCm tree with cfg as launcher
// (nil: none) and returns the launcher's counters for that build and the
// number of compiles Ninja ran, by language. It does
// what job.Build does with the launcher: Setup's defines go to configure
// (not the stamp), its environment to Ninja, stats are zeroed before and
// read after.
func build(t testing.TB, ctx context.Context, rocm *toolchain.ROCm, co checkout, cfg *launcher.Config, progress io.Writer) (launcher.Stats, map[string]int) {
	t.Helper()
	defs, cmakeEnv, err := rocm.CMakeSetup(filepath.Join(co.BackendDir, "hip-prefix"))
	if err != nil {
		t.Fatal(err)
	}
	defs["MLX_BUILD_ROCM"] = "ON"
	defs["CMAKE_HIP_ARCHITECTURES"] = hipArch
	defs["MLX_ROCM_ARCHITECTURES"] = hipArch
	ldefs, lenv, err := cfg.Setup(co.BackendDir, co.BackendDir)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range ldefs {
		defs[k] = v
	}
	var cfgLog strings.Builder
	if err := cmakebuild.Configure(ctx, cmakebuild.ConfigureOptions{Source: co.Tree, Build: co.Build, Defines: defs, Env: cmakeEnv, Log: &cfgLog}); err != nil {
		t.Fatalf("%v\n%s", err, cfgLog.String())
	}
	if err := launcher.WriteMarker(co.Build, ldefs); err != nil {
		t.Fatal(err)
	}
	if err := cfg.ZeroStats(ctx, lenv); err != nil {
		t.Fatal(err)
	}
	res, err := cmakebuild.Build(ctx, cmakebuild.BuildOptions{Dir: co.Build, Jobs: 2, Env: lenv, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	for _, lib := range []string{"libmlx.a", "libmlx_rocm_kernels.a"} {
		if _, err := os.Stat(filepath.Join(co.Build, lib)); err != nil {
			t.Fatalf("after %d steps: %v", res.Steps, err)
		}
	}
	st, err := cfg.Stats(ctx, lenv)
	if err != nil {
		t.Fatal(err)
	}
	compiles := map[string]int{}
	for _, s := range res.Ran {
		if s.Kind != "" && s.Kind != "LINK" {
			compiles[s.Kind]++
		}
	}
	return st, compiles
}

// stopOnFirstStep is a progress writer that calls stop once, when Ninja
// reports its first finished step.
type stopOnFirstStep struct {
	stop    func()
	stopped bool
	lines   strings.Builder
}

func (w *stopOnFirstStep) Write(p []byte) (int, error) {
	w.lines.Write(p)
	if !w.stopped && strings.Contains(w.lines.String(), "[1/") {
		w.stopped = true
		w.stop()
	}
	return len(p), nil
}
