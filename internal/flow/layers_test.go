package flow_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// brokenLine is a C++ line whose compile error gcc and clang both place at
// column 14 (the undeclared name).
const brokenLine = "int broken = undeclared_by_the_test;\n"

// TestLayerErrorsNameTheLayerFile builds the example's CPU backend with two
// overlay layers, for real: a CMake error in a file of the upper layer, a
// compile error in a file of the lower layer, and one in a file both layers
// provide (the upper one wins), each name the layer file the user edits, at
// CMake's line or the compiler's line and column, and never only the
// composed copy or the tree copy under the cache. A hand edit of a
// layered file in the tree is named, with its layer file, when the next
// apply restores it.
func TestLayerErrorsNameTheLayerFile(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	lower, upper := filepath.Join(p.Dir, "patches-shared"), filepath.Join(p.Dir, "patches-cpu")
	pristine := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(p.Mlx, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	const binary, reduce = "mlx/backend/cpu/binary.cpp", "mlx/backend/cpu/reduce.cpp"
	good := map[string]string{binary: pristine(binary), reduce: pristine(reduce)}
	testutil.WriteFile(t, filepath.Join(lower, binary), good[binary])
	testutil.WriteFile(t, filepath.Join(lower, reduce), good[reduce]+"// the lower layer's copy: the upper one wins\n")
	testutil.WriteFile(t, filepath.Join(upper, reduce), good[reduce])
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  cpu:\n    layers:\n      - {dir: patches-shared}\n      - {dir: patches-cpu}\n")
	o := func(stderr *bytes.Buffer) flow.Options {
		return flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: stderr}
	}
	cacheDir := filepath.Join(p.Cache, "cpu")

	// broken fails a build with brokenLine as line 2 of file in layer dir
	// and returns the error's message.
	broken := func(t *testing.T, dir, rel string) string {
		t.Helper()
		testutil.WriteFile(t, filepath.Join(dir, rel), "// line 1\n"+brokenLine+good[rel])
		defer testutil.WriteFile(t, filepath.Join(dir, rel), good[rel])
		var stderr bytes.Buffer
		_, err := flow.Build(context.Background(), o(&stderr), "cpu")
		if err == nil || !strings.Contains(err.Error(), "build failed") {
			t.Fatalf("a build with %s broken: %v, want a failed build\n%s", filepath.Join(dir, rel), err, stderr.String())
		}
		return fail.Message(err)
	}

	// The first configure meets an error in CMake code the upper layer
	// provides: it names that layer's file, at CMake's line.
	t.Run("configure", func(t *testing.T) {
		const cm = "mlx/CMakeLists.txt"
		file := filepath.Join(upper, cm)
		testutil.WriteFile(t, file, "# line 1\nmessage(FATAL_ERROR \"broken by the test\")\n"+pristine(cm))
		defer os.Remove(file)
		var stderr bytes.Buffer
		_, err := flow.Build(context.Background(), o(&stderr), "cpu")
		msg := fail.Message(err)
		if err == nil || !strings.Contains(msg, "broken by the test") {
			t.Fatalf("a configure with %s broken: %v, want CMake's error\n%s", file, err, stderr.String())
		}
		if want := "edit " + file + ":2 (overlay layer 2); the tree is a copy"; !strings.Contains(msg, want) {
			t.Errorf("the error does not name the upper layer's CMake file (%s):\n%s", want, msg)
		}
		if strings.Contains(msg, "fix it and configure again") {
			t.Errorf("what to do is said twice:\n%s", msg)
		}
	})
	t.Run("lower layer", func(t *testing.T) {
		msg := broken(t, lower, binary)
		want := "edit " + filepath.Join(lower, binary) + ":2:14 (overlay layer 1); the tree is a copy"
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not name the lower layer's file (%s):\n%s", want, msg)
		}
		if strings.Contains(msg, "edit "+cacheDir) || strings.Contains(msg, filepath.Join(cacheDir, "overlay")) {
			t.Errorf("the error names a copy under the cache %s:\n%s", cacheDir, msg)
		}
	})
	t.Run("upper layer over the lower", func(t *testing.T) {
		msg := broken(t, upper, reduce)
		want := "edit " + filepath.Join(upper, reduce) + ":2:14 (overlay layer 2); the tree is a copy"
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not name the upper layer's file (%s):\n%s", want, msg)
		}
		if strings.Contains(msg, filepath.Join(lower, reduce)) || strings.Contains(msg, "edit "+cacheDir) {
			t.Errorf("the error names the lower layer's or a cache copy:\n%s", msg)
		}
	})

	// Fixed: the build succeeds. Then the layers' files are made old, so
	// the manifest trusts their stat data and a changed tree copy can only
	// be a hand edit.
	var stderr bytes.Buffer
	if _, err := flow.Build(context.Background(), o(&stderr), "cpu"); err != nil {
		t.Fatalf("the fixed build: %v\n%s", err, stderr.String())
	}
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{filepath.Join(lower, binary), filepath.Join(lower, reduce), filepath.Join(upper, reduce)} {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := flow.Apply(context.Background(), o(&stderr), "cpu"); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(cacheDir, "tree")
	const header = "mlx/ops.h" // pristine: no layer has it
	good[header] = pristine(header)
	for _, rel := range []string{binary, reduce, header} {
		testutil.WriteFile(t, filepath.Join(tree, rel), good[rel]+"// a fix made in the tree\n")
	}
	stderr.Reset()
	if _, err := flow.Apply(context.Background(), o(&stderr), "cpu"); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{
		binary: "restored " + binary + ": it was edited in the tree; edit " + filepath.Join(lower, binary) + " (overlay layer 1) instead",
		reduce: "restored " + reduce + ": it was edited in the tree; edit " + filepath.Join(upper, reduce) + " (overlay layer 2) instead",
		header: "restored " + header + ": it was edited in the tree; to change it, copy " + filepath.Join(p.Mlx, header) + " into the top overlay layer as " + filepath.Join(upper, header),
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the apply after a hand edit of %s does not say %q:\n%s", rel, want, stderr.String())
		}
		if got, _ := os.ReadFile(filepath.Join(tree, rel)); string(got) != good[rel] {
			t.Errorf("the tree's %s holds %q, want its layer's version back", rel, got)
		}
	}
}

// TestConfigureErrorInPristineNamesIt: a FATAL_ERROR of MLX's own CMake code
// (an option this platform cannot have) names the pristine file behind the
// tree's copy, and keeps CMake's hint rather than asking for an edit.
func TestConfigureErrorInPristineNamesIt(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	testutil.WriteFile(t, filepath.Join(p.Dir, "cpu.yaml"), "defines:\n  - { name: MLX_BUILD_METAL, value: \"ON\" }\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	var stderr bytes.Buffer
	_, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	msg := fail.Message(err)
	if err == nil || !strings.Contains(msg, "MLX_BUILD_METAL=ON needs macOS") {
		t.Fatalf("build:cpu with MLX_BUILD_METAL=ON: %v, want CMake's error\n%s", err, stderr.String())
	}
	// The line of the message(FATAL_ERROR ...) call in the pristine file.
	pristine, _ := os.ReadFile(filepath.Join(p.Mlx, "CMakeLists.txt"))
	line := 0
	for i, l := range strings.Split(string(pristine), "\n") {
		if strings.Contains(l, "MLX_BUILD_METAL=ON needs macOS") {
			line = i + 1
			break
		}
	}
	if want := fmt.Sprintf("\nin pristine: %s:%d\n", filepath.Join(p.Mlx, "CMakeLists.txt"), line); line == 0 || !strings.Contains(msg, want) {
		t.Errorf("the error does not name the pristine file (%q):\n%s", want, msg)
	}
	if !strings.Contains(msg, "fix it and configure again") || strings.Contains(msg, "edit ") {
		t.Errorf("the error asks for an edit of MLX or lost CMake's hint:\n%s", msg)
	}
}
