package cargoworkspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// recordingCompilers makes CC and CXX stand-ins that record every
// invocation: CMake takes them for MLX's compiles and the cc crate for the
// bridge's (rustc links with `cc` from PATH, which they do not replace).
func recordingCompilers(t *testing.T) (env []string, log string) {
	t.Helper()
	return testutil.RecordingCompilers(t)
}

// TestCheckOnlyWorkspace runs the workspace as an editor, a lint job and
// docs.rs do: `cargo check` with MLXBUILD_CHECK_ONLY=1, then with
// DOCS_RS=1, passes with no compiler started and nothing configured; the
// `cargo build` after them (same target directory, variables unset) still
// builds MLX and the bridge and links a cli that runs; and an editor's own
// target directory inside the user's (rust-analyzer's target/rust-analyzer)
// finds that build up to date instead of building MLX a second time.
func TestCheckOnlyWorkspace(t *testing.T) {
	testutil.NeedTools(t, "cargo", "go", "cmake", "ninja", "c++", "cc")
	testutil.NeedFiles(t, "Debian's cc crate (librust-cc-dev)", ccCrate)
	w := newWorkspaceOf(t, "cargo-workspace", "", standInROCm)
	compilers, log := recordingCompilers(t)
	w.env = append(w.env, compilers...)
	w.env = append(w.env, "MLXBUILD_MAGE="+testutil.CompileMlxbuild(t, w.repo))
	build := filepath.Join(w.target, "mlxbuild", "cpu", "build")
	base := w.env

	for _, mode := range []string{"MLXBUILD_CHECK_ONLY=1", "DOCS_RS=1"} {
		w.env = append(append([]string(nil), base...), mode)
		w.cargoOK(t, "check", "-p", "cli")
		if stderr := w.buildScriptStderr(t); !strings.Contains(stderr, "cpu: check only ("+mode+")") {
			t.Errorf("%s: the build script did not run check-only:\n%s", mode, stderr)
		}
		if calls, err := os.ReadFile(log); err == nil {
			t.Errorf("%s: cargo check started compilers:\n%s", mode, calls)
		}
		// An editor checks again and again: the script's output stays
		// fresh while nothing it watches changes.
		if out := w.cargoOK(t, "check", "-v", "-p", "cli"); !strings.Contains(out, "Fresh mlx-sys") || strings.Contains(out, "Running") {
			t.Errorf("%s: the second cargo check was not fresh:\n%s", mode, out)
		}
		for _, made := range []string{"CMakeCache.txt", "build.ninja", ".ninja_log"} {
			if _, err := os.Stat(filepath.Join(build, made)); err == nil {
				t.Errorf("%s: cargo check configured MLX (%s exists)", mode, made)
			}
		}
	}

	w.env = base
	w.cargoOK(t, "build", "-p", "cli")
	if stderr := w.buildScriptStderr(t); !strings.Contains(stderr, "done: cpu built") {
		t.Fatalf("cargo build after the check-only runs did not build MLX:\n%s", stderr)
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "bridge.cpp") || strings.Count(string(calls), "\n") < 3 {
		t.Errorf("cargo build after the check-only runs did not compile MLX and the bridge:\n%s", calls)
	}
	if out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", filepath.Join(w.target, "debug", "cli")); !strings.Contains(out, "cli: mlx 0.1.0 backend=cpu bridge=cpu gpu_define=false add_sum=66\n") {
		t.Errorf("cli printed:\n%s", out)
	}

	editor := filepath.Join(w.target, "rust-analyzer")
	w.env = append(append([]string(nil), base...), "CARGO_TARGET_DIR="+editor)
	w.cargoOK(t, "check", "-p", "cli")
	w.target = editor
	if stderr := w.buildScriptStderr(t); !strings.Contains(stderr, "done: cpu is up to date") {
		t.Errorf("the editor's target directory did not reuse the user's build:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(editor, "mlxbuild")); err == nil {
		t.Errorf("the editor's target directory got an MLX cache of its own")
	}
}
