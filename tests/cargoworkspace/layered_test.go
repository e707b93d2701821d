package cargoworkspace

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// linked is one ELF of a Cargo build that links MLX, as Cargo's JSON
// messages name it.
type linked struct {
	path, what string // what: "bin cli", "test engine_it", "cdylib engine", ...
}

// cargoArtifacts runs cargo with --message-format=json and returns every
// executable and cdylib it reports.
func (w *workspace) cargoArtifacts(t *testing.T, args ...string) []linked {
	t.Helper()
	out := w.cargoOK(t, append(args, "--message-format=json-render-diagnostics")...)
	var elfs []linked
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m struct {
			Reason string   `json:"reason"`
			Target struct { // Kind is never empty
				Name string   `json:"name"`
				Kind []string `json:"kind"`
			} `json:"target"`
			Profile struct {
				Test bool `json:"test"`
			} `json:"profile"`
			Filenames  []string `json:"filenames"`
			Executable *string  `json:"executable"`
		}
		if !strings.HasPrefix(sc.Text(), "{") || json.Unmarshal(sc.Bytes(), &m) != nil || m.Reason != "compiler-artifact" || len(m.Target.Kind) == 0 {
			continue
		}
		kind := m.Target.Kind[0]
		if slices.Contains(m.Target.Kind, "lib") || slices.Contains(m.Target.Kind, "rlib") {
			kind = "lib"
		}
		if m.Profile.Test && kind != "test" && kind != "bench" {
			kind = "unit tests of " + kind
		}
		if m.Executable != nil {
			elfs = append(elfs, linked{*m.Executable, kind + " " + m.Target.Name})
		}
		if slices.Contains(m.Target.Kind, "cdylib") {
			for _, f := range m.Filenames {
				if strings.HasSuffix(f, ".so") {
					elfs = append(elfs, linked{f, "cdylib " + m.Target.Name})
				}
			}
		}
	}
	return elfs
}

// dlopenMain is a C program that loads engine's cdylib and calls it.
const dlopenMain = `#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char** argv) {
  void* h = dlopen(argv[1], RTLD_NOW);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  float (*f)(void) = (float (*)(void))dlsym(h, "engine_add_sum");
  if (!f) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  printf("cdylib: add_sum=%g\n", f());
  return 0;
}
`

// TestLayeredROCm builds examples/cargo-workspace (mlx-sys, engine on it,
// cli and bench-tool on engine) for ROCm against a ROCm root outside the
// system's library directories whose HIP runtime is a stand-in, and
// starts every ELF Cargo links (binaries, the example, unit and
// integration tests, the bench, engine's cdylib) with LD_LIBRARY_PATH
// unset: each carries the stand-in's directory as RUNPATH, and the loader
// finds libamdhip64 there through it. Then an overlay edit rebuilds MLX
// inside the build script, and the next build is Fresh.
func TestLayeredROCm(t *testing.T) {
	testutil.NeedTools(t, "cargo", "go", "cmake", "ninja", "hipcc", "cc", "c++", "readelf", "nm")
	testutil.NeedFiles(t, "Debian's cc crate (librust-cc-dev)", ccCrate)
	w := newWorkspaceOf(t, "cargo-workspace", "", standInROCm)
	w.env = append(w.env, "MLXBUILD_MAGE="+testutil.CompileMlxbuild(t, w.repo))

	elfs := w.cargoArtifacts(t, "build", "--workspace", "--all-targets", "--features", "rocm")
	var kinds []string
	for _, e := range elfs {
		kinds = append(kinds, e.what)
	}
	for _, want := range []string{"bin cli", "bin bench-tool", "example hello", "test cli_it", "test engine_it", "unit tests of bin cli", "unit tests of lib engine", "unit tests of lib mlx_sys", "bench add_sum", "cdylib engine"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("cargo built no %s; it built %v", want, kinds)
		}
	}
	loader := filepath.Join(t.TempDir(), "dlopen")
	testutil.WriteFile(t, loader+".c", dlopenMain)
	testutil.RunOK(t, nil, "", "cc", "-o", loader, loader+".c", "-ldl")

	noLibPath := append(testutil.EnvWithout("LD_LIBRARY_PATH"), "LD_DEBUG=libs")
	found := regexp.MustCompile(`(?m)^\s*\d+:\s+trying file=` + regexp.QuoteMeta(filepath.Join(w.libDir, standInSoname)) + `$`)
	for _, e := range elfs {
		t.Run(e.what, func(t *testing.T) {
			elf := testutil.RunOK(t, nil, "", "readelf", "-d", e.path)
			if got := testutil.Field(elf, "Library runpath: ["); got != w.libDir {
				t.Fatalf("RUNPATH of %s = %q, want the ROCm library directory %s\n%s", e.path, got, w.libDir, elf)
			}
			var out string
			if strings.HasPrefix(e.what, "cdylib") {
				out = testutil.RunOK(t, noLibPath, "", loader, e.path)
			} else {
				out = testutil.RunOK(t, noLibPath, w.dir, e.path)
			}
			// The loader's search for the stand-in: in the run path's
			// directory, which it names as the RUNPATH of this ELF.
			if !strings.Contains(out, "search path="+w.libDir+"\t\t(RUNPATH from file "+e.path+")") || !found.MatchString(out) || !strings.Contains(out, "calling init: "+filepath.Join(w.libDir, standInSoname)) {
				t.Errorf("%s did not load %s through its RUNPATH %s:\n%s", e.path, standInSoname, w.libDir, out)
			}
		})
	}
	{
		bin := filepath.Join(w.target, "debug", "cli")
		out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", bin)
		if !strings.Contains(out, "cli: mlx 0.1.0 backend=rocm bridge=rocm gpu_define=true add_sum=66\n") || !strings.Contains(out, "cli: built by mlxbuild for rocm architectures=gfx1030\n") {
			t.Errorf("cli printed:\n%s", out)
		}
	}
	t.Run("the cache is in the target directory", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(w.target, "mlxbuild", "rocm", "out", "cargo.txt")); err != nil {
			t.Errorf("no link plan in CARGO_TARGET_DIR's mlxbuild/: %v", err)
		}
	})
	t.Run("one build script run per change", func(t *testing.T) {
		w.overlayVersion(t, "0.1.0-overlay")
		w.cargoOK(t, "build", "--workspace", "--features", "rocm")
		if log := w.buildScriptStderr(t); !strings.Contains(log, "done: rocm built") {
			t.Fatalf("the build script did not rebuild MLX after the overlay edit:\n%s", log)
		}
		out := w.cargoOK(t, "build", "-v", "--workspace", "--features", "rocm")
		if !strings.Contains(out, "Fresh mlx-sys") || strings.Contains(out, "Compiling") || strings.Contains(out, "Running") {
			t.Errorf("the build after the one that rebuilt MLX was not fresh:\n%s", out)
		}
		if out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", filepath.Join(w.target, "debug", "cli")); !strings.Contains(out, "cli: mlx 0.1.0-overlay ") {
			t.Errorf("cli after the overlay edit printed:\n%s", out)
		}
	})
}

// TestCacheFollowsTargetDir builds the workspace for cpu with no cache: in
// the project file, under `cargo build -j 2`: MLX is built with the jobs
// Cargo's jobserver allows, in mlxbuild/ of CARGO_TARGET_DIR, the
// build after the one that built it is Fresh, and `cargo clean` removes it
// with the target directory; a cache outside it (MLXBUILD_CACHE) survives
// `cargo clean`, and the next build finds MLX up to date there.
func TestCacheFollowsTargetDir(t *testing.T) {
	testutil.NeedTools(t, "cargo", "go", "cmake", "ninja", "c++", "nm")
	testutil.NeedFiles(t, "Debian's cc crate (librust-cc-dev)", ccCrate)
	w := newWorkspaceOf(t, "cargo-workspace", "", standInROCm)
	w.env = append(w.env, "MLXBUILD_MAGE="+testutil.CompileMlxbuild(t, w.repo))
	plan := filepath.Join(w.target, "mlxbuild", "cpu", "out", "cargo.txt")

	// -j 2 with MLXBUILD_JOBS=8: Cargo's jobserver, which reaches mlxbuild
	// through the build script and Mage, caps MLX's jobs at the two Cargo
	// allows (the script's own token and at most one free).
	w.env = append(w.env, "MLXBUILD_JOBS=8")
	w.cargoOK(t, "build", "-j", "2", "-p", "cli")
	if _, err := os.Stat(plan); err != nil {
		t.Fatalf("MLX was not built in CARGO_TARGET_DIR's mlxbuild/: %v", err)
	}
	log := w.buildScriptStderr(t)
	if !strings.Contains(log, "done: cpu built") {
		t.Fatalf("the build script did not build MLX:\n%s", log)
	}
	if !regexp.MustCompile(`build with [12] jobs\n`).MatchString(log) {
		t.Errorf("under cargo build -j 2 MLX was not built with at most 2 jobs:\n%s", log)
	}
	if out := w.cargoOK(t, "build", "-v", "-p", "cli"); !strings.Contains(out, "Fresh mlx-sys") || strings.Contains(out, "Running") {
		t.Errorf("the build after the one that built MLX was not fresh:\n%s", out)
	}
	w.cargoOK(t, "clean")
	if _, err := os.Stat(filepath.Dir(filepath.Dir(plan))); !os.IsNotExist(err) {
		t.Errorf("cargo clean left the MLX cache in the target directory: %v", err)
	}

	own := filepath.Join(t.TempDir(), "mlx-cache")
	w.env = append(w.env, "MLXBUILD_CACHE="+own)
	w.cargoOK(t, "build", "-p", "cli")
	w.cargoOK(t, "clean")
	if _, err := os.Stat(filepath.Join(own, "cpu", "out", "cargo.txt")); err != nil {
		t.Fatalf("cargo clean removed the cache MLXBUILD_CACHE names: %v", err)
	}
	w.cargoOK(t, "build", "-p", "cli")
	if log := w.buildScriptStderr(t); !strings.Contains(log, "done: cpu is up to date") {
		t.Errorf("after cargo clean the build script rebuilt MLX in a cache outside the target directory:\n%s", log)
	}
	if out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", filepath.Join(w.target, "debug", "cli")); !strings.Contains(out, "cli: mlx 0.1.0 backend=cpu bridge=cpu gpu_define=false add_sum=66\n") {
		t.Errorf("cli printed:\n%s", out)
	}
}
