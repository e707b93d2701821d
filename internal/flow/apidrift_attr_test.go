package flow

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
)

// attrTree is a tree with an overlay file, custom_kernel.cpp, that makes a
// CustomKernel with a constructor MLX changed, and an upstream file,
// compiled.cpp, that includes an overlay core header.
func attrTree(t *testing.T) (tree, overlay string) {
	t.Helper()
	root := t.TempDir()
	tree, overlay = filepath.Join(root, "tree"), filepath.Join(root, "overlay")
	for dir, files := range map[string][]string{
		tree:    {"mlx/backend/rocm/custom_kernel.cpp", "mlx/k.h", "mlx/compiled.h", "mlx/backend/cpu/compiled.cpp"},
		overlay: {"mlx/backend/rocm/custom_kernel.cpp", "mlx/compiled.h"},
	} {
		for _, f := range files {
			path := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			body := ""
			if f == "mlx/backend/cpu/compiled.cpp" {
				body = "#include \"mlx/k.h\"\n#include \"mlx/compiled.h\"\n#include <vector>\n"
			}
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return tree, overlay
}

// TestGroupErrorsFollowsInstantiation: a constructor break that gcc 12 and
// clang 15 report inside libstdc++'s stl_construct.h (real output, see
// internal/cmake/testdata/diag) is the overlay file's that made the
// object, at the line of the call; an upstream file's errors name the
// overlay header it includes.
func TestGroupErrorsFollowsInstantiation(t *testing.T) {
	tree, overlay := attrTree(t)
	for _, name := range []string{"gcc12-required-from.txt", "clang15-instantiation.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "cmake", "testdata", "diag", name))
		if err != nil {
			t.Fatal(err)
		}
		diags := cmake.ParseDiagnostics(strings.ReplaceAll(string(data), "/tree/", tree+"/"))
		got := groupErrors(diags, tree, overlay)
		if len(got) != 1 || got[0].File != "mlx/backend/rocm/custom_kernel.cpp" || !got[0].InOverlay {
			t.Fatalf("%s: grouped as %+v, want custom_kernel.cpp (overlay) alone", name, got)
		}
		for _, d := range got[0].Errors {
			if d.Line != 5 || !strings.Contains(d.Message, "(reported in /usr/") || !strings.Contains(d.Message, "stl_construct.h") {
				t.Errorf("%s: %+v does not point at custom_kernel.cpp:5 with where it was reported", name, d)
			}
		}
	}
	up := groupErrors([]cmake.Diagnostic{{File: filepath.Join(tree, "mlx/backend/cpu/compiled.cpp"), Line: 301, Message: "4 names provided for structured binding"}}, tree, overlay)
	if len(up) != 1 || up[0].InOverlay || !reflect.DeepEqual(up[0].Includes, []string{"mlx/compiled.h"}) {
		t.Errorf("upstream error: %+v, want compiled.cpp naming the overlay's mlx/compiled.h", up)
	}
}

// TestClassifySymbols: only MLX's symbols are the bump's; the toolchain's
// and the system's (hip*, hiprtc*, rocblas, BLAS, libstdc++) are left out,
// unless the tree defined them at the pin; what was unresolved at the pin
// is not the bump's; a symbol whose defining file failed to compile is
// counted apart.
func TestClassifySymbols(t *testing.T) {
	syms := func(names ...string) []Symbol {
		var out []Symbol
		for _, n := range names {
			out = append(out, Symbol{Name: n, From: []string{"mlx/backend/rocm/device.cpp"}})
		}
		return out
	}
	cand := &buildOutcome{missing: syms(
		"hipMalloc", "hiprtcCompileProgram", "rocblas_create_handle", "sgemm_", "std::__throw_bad_alloc()",
		"mlx::core::Event::error() const", "vtable for mlx::core::Compiled", "mlx::core::rocm::old_kernel()",
		"mlx::core::ops_helper(int)", "mlx_c_entry"),
		failedSources: map[string]bool{"mlx/ops.cpp": true}}
	base := &buildOutcome{
		defined:    map[string]string{"mlx::core::ops_helper(int)": "mlx/ops.cpp", "mlx_c_entry": "mlx/c_api.cpp"},
		missingSet: map[string]bool{"mlx::core::rocm::old_kernel()": true, "hipMalloc": true},
	}
	undefined, unresolved, ofFailed, foreign := classifySymbols(cand, base)
	names := func(s []Symbol) []string {
		var out []string
		for _, x := range s {
			out = append(out, x.Name)
		}
		return out
	}
	if want := []string{"mlx::core::Event::error() const", "vtable for mlx::core::Compiled", "mlx_c_entry"}; !reflect.DeepEqual(names(undefined), want) {
		t.Errorf("undefined %q, want %q", names(undefined), want)
	}
	if want := []string{"mlx::core::rocm::old_kernel()"}; !reflect.DeepEqual(names(unresolved), want) {
		t.Errorf("unresolved %q, want %q", names(unresolved), want)
	}
	if ofFailed != 1 || foreign != 5 {
		t.Errorf("%d of failed files, %d foreign; want 1 and 5", ofFailed, foreign)
	}
}

// TestGroupErrorsAfterWarningChain: a constructor break reported in
// stl_construct.h after a warning's own instantiation chain (which leads
// to the overlay's module.h) is the .cpp's that made the object, as on the
// ROCm fork (custom_kernel.cpp:246, not jit_module.h:138).
func TestGroupErrorsAfterWarningChain(t *testing.T) {
	root := t.TempDir()
	tree, overlay := filepath.Join(root, "tree"), filepath.Join(root, "overlay")
	for _, dir := range []string{tree, overlay} {
		for _, f := range []string{"maker.cpp", "queue.h", "module.h"} {
			path := filepath.Join(dir, "mlx", "backend", "rocm", f)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "cmake", "testdata", "diag", "gcc-warning-then-error.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := groupErrors(cmake.ParseDiagnostics(strings.ReplaceAll(string(data), "/tree/", tree+"/")), tree, overlay)
	if len(got) != 1 || got[0].File != "mlx/backend/rocm/maker.cpp" || len(got[0].Errors) != 2 {
		t.Fatalf("grouped as %+v, want both errors under mlx/backend/rocm/maker.cpp", got)
	}
	if d := got[0].Errors[0]; d.Line != 9 || !strings.Contains(d.Message, "construct_at") {
		t.Errorf("the constructor break is %+v, want it at maker.cpp:9", d)
	}
}
