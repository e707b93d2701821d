package cargoworkspace

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// workspace is one copy of the project around the example: a temporary
// mlxbuild.yaml (MLXBUILD_CONFIG) over a copy of minimlx the test may edit,
// a fake ROCm prefix, and one CARGO_TARGET_DIR shared by every step, so
// Cargo compiles cc and the crates once.
type workspace struct {
	dir     string // examples/cargo-workspace
	repo    string // mlxbuild's checkout: the build script runs its magefile
	mlx     string // the editable minimlx source
	overlay string // the editable ROCm overlay
	libDir  string // the fake ROCm prefix's library directory
	target  string
	env     []string
}

func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	return newWorkspaceOf(t, "cargo-workspace", "cache: cache\n", standInROCm)
}

// newWorkspaceOf is newWorkspace for the example of that name, with
// cacheLine in the project file ("" for the default cache) and the ROCm
// root rocm makes.
func newWorkspaceOf(t *testing.T, example, cacheLine string, rocm func(*testing.T, string) string) *workspace {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	w := &workspace{dir: filepath.Join(repo, "examples", example), repo: repo, mlx: filepath.Join(tmp, "mlx"), target: filepath.Join(tmp, "cargo-target")}
	testutil.CopyTree(t, filepath.Join(repo, "examples", "minimlx", "mlx"), w.mlx)
	w.overlay = filepath.Join(tmp, "patches-rocm")
	testutil.CopyTree(t, filepath.Join(repo, "examples", "minimlx", "patches-rocm"), w.overlay)
	spec, err := os.ReadFile(filepath.Join(repo, "examples", "minimlx", "rocm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(tmp, "rocm.yaml"), string(spec))
	// The example's FetchContent dependency comes from its mirror, as in the
	// repository's own project file.
	testutil.CopyTree(t, filepath.Join(repo, "examples", "minimlx", "deps"), filepath.Join(tmp, "deps"))
	testutil.WriteFile(t, filepath.Join(tmp, "mlxbuild.yaml"), `source:
  dir: mlx
  pin: 81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1
`+cacheLine+`deps_mirror: deps
backends:
  rocm:
    overlay: patches-rocm
    spec: rocm.yaml
    merge: extend
`)
	root := rocm(t, filepath.Join(tmp, "rocm"))
	w.libDir = filepath.Join(root, "lib", "x86_64-linux-gnu")
	w.env = append(testutil.EnvWithout("LD_LIBRARY_PATH", "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "MLXBUILD_MAGE", "MLXBUILD_KFD_TOPOLOGY", "MLX_ROCM_ARCHITECTURES", "ROCM_PATH", "RUSTFLAGS"),
		"MLXBUILD_CONFIG="+filepath.Join(tmp, "mlxbuild.yaml"),
		"CARGO_TARGET_DIR="+w.target,
		"ROCM_PATH="+root,
		"MLX_ROCM_ARCHITECTURES=gfx1030",
		"MLXBUILD_KFD_TOPOLOGY="+filepath.Join(tmp, "no-kfd"),
		"MLXBUILD_JOBS=2",
		// Mage keys its binary cache on the magefile's text alone: a
		// shared cache could run a binary built from an older mlxbuild.
		"MAGEFILE_CACHE="+filepath.Join(tmp, "magefile-cache"),
		"CARGO_NET_OFFLINE=true",
		"NO_COLOR=1",
	)
	return w
}

func (w *workspace) cargo(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return testutil.Run(w.env, w.dir, "cargo", args...)
}

// cargoRun is `cargo run` with the program's stdout apart from Cargo's
// stderr: interleaved, Cargo's "Running `...`" line can land inside the
// program's first line.
func (w *workspace) cargoRun(t *testing.T, args ...string) string {
	t.Helper()
	return w.cargoStdout(t, "run", args...)
}

// cargoStdout runs a cargo subcommand and returns its stdout alone (a
// program's or the test harness's lines), failing the test on an error
// with both streams as they came.
func (w *workspace) cargoStdout(t *testing.T, sub string, args ...string) string {
	t.Helper()
	var stdout, both testutil.LockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_, err := proc.Run(ctx, proc.Cmd{Path: "cargo", Args: append([]string{sub}, args...), Dir: w.dir, Env: w.env,
		Stdout: io.MultiWriter(&stdout, &both), Stderr: &both})
	if err != nil {
		t.Fatalf("cargo %s %s: %v\n%s", sub, strings.Join(args, " "), err, both.String())
	}
	return stdout.String()
}

func (w *workspace) cargoOK(t *testing.T, args ...string) string {
	t.Helper()
	out, err := w.cargo(t, args...)
	if err != nil {
		t.Fatalf("cargo %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// ccCrate is where librust-cc-dev puts the crate the workspace's
// .cargo/config.toml replaces crates.io with.
const ccCrate = "/usr/share/cargo/registry/cc-*"

// cliLine is what the cli binary prints; its fields say which backend
// libmlx and the bridge were built for.
var cliLine = regexp.MustCompile(`(?m)^cli: mlx (\S+) backend=(\S+) bridge=(\S+) gpu_define=(\S+) add_sum=66$`)

// TestWorkspaceROCm builds the workspace for ROCm and checks the issue's
// promises on that one build (the HIP compile is the slow part): the binary
// carries the run path and loads libamdhip64 through it with
// LD_LIBRARY_PATH unset; the bridge was compiled with the backend's define;
// `--features rocm,cuda` is refused naming both; an MLX source edit and a
// rebuild relink the binary.
func TestWorkspaceROCm(t *testing.T) {
	testutil.NeedTools(t, "cargo", "go", "cmake", "ninja", "hipcc", "c++", "readelf")
	testutil.NeedFiles(t, "Debian's cc crate (librust-cc-dev)", ccCrate)
	w := newWorkspace(t)
	w.cargoOK(t, "build", "-p", "cli", "--features", "rocm")
	cli := filepath.Join(w.target, "debug", "cli")

	t.Run("run path reaches the binary", func(t *testing.T) {
		elf := testutil.RunOK(t, nil, "", "readelf", "-d", cli)
		if got := testutil.Field(elf, "Library runpath: ["); got != w.libDir {
			t.Fatalf("RUNPATH of cli = %q, want the ROCm library directory %s\n%s", got, w.libDir, elf)
		}
		// LD_DEBUG shows where the loader found libamdhip64: in the fake
		// prefix, which only the run path names (without it the loader
		// would take Debian's copy from its default directories).
		out := testutil.RunOK(t, append(testutil.EnvWithout("LD_LIBRARY_PATH"), "LD_DEBUG=libs"), "", cli)
		if !strings.Contains(out, "calling init: "+filepath.Join(w.libDir, "libamdhip64.so")) {
			t.Errorf("libamdhip64 was not loaded from the run path %s:\n%s", w.libDir, out)
		}
		m := cliLine.FindStringSubmatch(out)
		if m == nil || m[2] != "rocm" {
			t.Fatalf("cli output lacks the ROCm line:\n%s", out)
		}
	})

	t.Run("bridge compiled with the backend's define", func(t *testing.T) {
		out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", cli)
		m := cliLine.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("cli printed:\n%s", out)
		}
		// bridge= comes from #ifdef MLXBUILD_BACKEND_ROCM in cpp/bridge.cpp
		// (it does not compile without a backend define); gpu_define from
		// MLXBUILD_GPU_BACKEND.
		if m[3] != "rocm" || m[4] != "true" {
			t.Errorf("bridge=%s gpu_define=%s, want rocm and true (the rocm spec's compile.defines)", m[3], m[4])
		}
		// The rustc-env values reach the binary through the library's consts.
		if !strings.Contains(out, "cli: built by mlxbuild for rocm architectures=gfx1030\n") {
			t.Errorf("the embedded backend and architectures did not reach the binary:\n%s", out)
		}
	})

	t.Run("cargo test of the library runs without LD_LIBRARY_PATH", func(t *testing.T) {
		// The library's own test binary gets the run path from cargo.txt's
		// rustc-link-arg; its test checks the bridge against libmlx.
		// The harness's lines only: Cargo's "Doc-tests" line on stderr
		// could land inside "test ... ok".
		out := w.cargoStdout(t, "test", "-p", "mlx-sys", "--features", "rocm")
		if !strings.Contains(out, "test tests::bridge_and_library_agree ... ok") {
			t.Errorf("the library's test did not pass:\n%s", out)
		}
	})

	t.Run("two GPU features are refused naming both", func(t *testing.T) {
		out, err := w.cargo(t, "build", "-p", "cli", "--features", "rocm,cuda")
		if err == nil {
			t.Fatalf("cargo build --features rocm,cuda succeeded:\n%s", out)
		}
		want := "cannot build rocm (requested by CARGO_FEATURE_ROCM) together with cuda (requested by CARGO_FEATURE_CUDA)"
		if !strings.Contains(out, want) {
			t.Errorf("cargo's output lacks %q:\n%s", want, out)
		}
	})

	t.Run("an MLX source edit and a rebuild relink", func(t *testing.T) {
		version := filepath.Join(w.mlx, "mlx", "version.cpp")
		src, err := os.ReadFile(version)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(src), "return MLX_VERSION;", `return "0.1.0-edited";`, 1)
		if edited == string(src) {
			t.Fatal("version.cpp no longer returns MLX_VERSION; update the edit")
		}
		testutil.WriteFile(t, version, edited)
		// The rebuild the reference's users make by hand, then cargo run:
		// before the link plan named the archives, Cargo said Fresh here.
		testutil.RunOK(t, w.env, w.repo, "go", "run", "mage.go", "build:rocm")
		out := w.cargoRun(t, "-p", "cli", "--features", "rocm")
		m := cliLine.FindStringSubmatch(out)
		if m == nil || m[1] != "0.1.0-edited" {
			t.Fatalf("cargo run after the edit did not show the new libmlx:\n%s", out)
		}
		// The build script's mlxbuild shared the cache with the mage run
		// before it (as `mage verify:rocm` then `cargo test` in CI do).
		if log := w.buildScriptStderr(t); !strings.Contains(log, "done: rocm is up to date") {
			t.Errorf("the build script rebuilt what mage had just built:\n%s", log)
		}
		// Nothing changed since: Cargo has nothing to redo.
		out = w.cargoOK(t, "build", "-v", "-p", "cli", "--features", "rocm")
		if !strings.Contains(out, "Fresh mlx-sys") || strings.Contains(out, "Compiling") {
			t.Errorf("a build with no change was not fresh:\n%s", out)
		}
	})

	t.Run("cargo run after an overlay edit rebuilds MLX", func(t *testing.T) {
		// The developer loop: no mage step, the overlay is a
		// rerun-if-changed input of the build script.
		w.overlayVersion(t, "0.1.0-overlay")
		out := w.cargoRun(t, "-p", "cli", "--features", "rocm")
		if m := cliLine.FindStringSubmatch(out); m == nil || m[1] != "0.1.0-overlay" {
			t.Fatalf("cargo run after the overlay edit did not rebuild libmlx:\n%s", out)
		}
		if log := w.buildScriptStderr(t); !strings.Contains(log, "done: rocm built") {
			t.Errorf("the build script's mlxbuild did not build:\n%s", log)
		}
	})

	t.Run("a bundle of cli runs with the ROCm root and the cache gone", func(t *testing.T) {
		w.bundleRuns(t, cli)
	})
}

// buildScriptStderr is what mlx-sys's build script wrote to stderr in its latest run (Cargo keeps it in the
// script's output directory).
func (w *workspace) buildScriptStderr(t *testing.T) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(w.target, "debug", "build", "mlx-sys-*", "stderr"))
	var newest string
	var when int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.ModTime().UnixNano() > when {
			newest, when = f, st.ModTime().UnixNano()
		}
	}
	if newest == "" {
		t.Fatalf("no build script output under %s", w.target)
	}
	data, err := os.ReadFile(newest)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// overlayVersion puts a version.cpp that returns version into the ROCm
// overlay: the next build of MLX compiles it.
func (w *workspace) overlayVersion(t *testing.T, version string) {
	t.Helper()
	testutil.WriteFile(t, filepath.Join(w.overlay, "mlx", "version.cpp"), `#include "mlx/build_config.h"
namespace mlx::core {
const char* version() { return "`+version+`"; }
const char* backend() { return MLX_BACKEND; }
const char* gpu_archs() { return MLX_GPU_ARCHS; }
}
`)
}
