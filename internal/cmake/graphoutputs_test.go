package cmake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGraphOutputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("build.ninja", "include rules.ninja\n"+
		"build libmlx.a: CXX_STATIC_LIBRARY_LINKER__mlx_Release mlx/CMakeFiles/mlx.dir/c_api.cpp.o || libmlx_rocm_kernels.a\n"+
		"  TARGET_FILE = libmlx.a\n"+
		"build mlx/CMakeFiles/mlx.dir/c$ api.cpp.o | gen/a$:b.h: CXX_COMPILER__mlx_Release /t/mlx/c_api.cpp\n"+
		"build /abs/out.a $\n    other.a: phony\n"+
		"build $out_var: phony\n"+
		"subninja sub.ninja\n")
	write("rules.ninja", "rule CXX_COMPILER__mlx_Release\n  command = c++ -c $in -o $out\n")
	write("sub.ninja", "build sub/libx.a: phony\n")
	got, err := graphOutputs(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	want := []string{"/abs/out.a", filepath.Join(dir, "gen/a:b.h"), filepath.Join(dir, "libmlx.a"), filepath.Join(dir, "mlx/CMakeFiles/mlx.dir/c api.cpp.o"), filepath.Join(dir, "other.a"), filepath.Join(dir, "sub/libx.a")}
	slices.Sort(want)
	if !slices.Equal(paths, want) {
		t.Errorf("graphOutputs = %q\nwant %q", paths, want)
	}
	if got[filepath.Join(dir, "libmlx_rocm_kernels.a")] {
		t.Error("an order-only input read as an output")
	}
	if _, err := graphOutputs(t.TempDir(), nil); err == nil {
		t.Error("a directory without build.ninja gave no error")
	}
}

// FuzzGraphOutputs: any manifest text gives outputs without a panic, none
// empty, and the first statement's outputs written back with Ninja's
// escapes read the same.
func FuzzGraphOutputs(f *testing.F) {
	f.Add([]byte("build libmlx.a: CXX_STATIC_LIBRARY_LINKER mlx/a.o\nbuild a$ b | c$:d: phony\n"))
	f.Add([]byte("build $\n  x.a: phony\ninclude rules.ninja\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		outs, _ := manifestOutputs(data)
		for _, o := range outs {
			if o == "" || o == "|" {
				t.Fatalf("output %q from %q", o, data)
			}
		}
		if len(outs) == 0 || strings.ContainsAny(strings.Join(outs, ""), "\n\r") {
			return // a line break inside an output cannot be written back on one line
		}
		var line []byte
		for _, o := range outs {
			for i := 0; i < len(o); i++ {
				if o[i] == ' ' || o[i] == ':' || o[i] == '$' {
					line = append(line, '$')
				}
				line = append(line, o[i])
			}
			line = append(line, ' ')
		}
		if again := edgeOutputs(string(line) + ": phony"); !slices.Equal(again, outs) {
			t.Fatalf("%q written back as %q reads %q", outs, line, again)
		}
	})
}
