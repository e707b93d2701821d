package overlays

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// hipFixture is a tree shaped like the ROCm fork's: HIP sources compiled by
// custom commands that know only the source, headers in the overlay that
// include each other (a cycle, as include guards allow), and a core header
// from the pristine source.
func hipFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.p["mlx/dtype.h"] = "// dtype\n"
	f.o["mlx/backend/rocm/a.hip"] = "#include \"mlx/backend/rocm/device.h\"\n  #  include <mlx/backend/rocm/port.h>\n"
	f.o["mlx/backend/rocm/b.hip"] = "#include \"kernel.h\" // next to it\n"
	f.o["mlx/backend/rocm/c.hip"] = "#include <hip/hip_runtime.h>\n/* #include \"not/there.h\" */\n"
	f.o["mlx/backend/rocm/device.h"] = "#pragma once\n#include \"mlx/backend/rocm/kernel.h\"\n"
	f.o["mlx/backend/rocm/kernel.h"] = "#pragma once\n#include \"device.h\"\n#include \"../../dtype.h\"\n"
	f.o["mlx/backend/rocm/port.h"] = "#pragma once\n"
	writeFiles(t, f.pristine, f.p)
	writeFiles(t, f.overlay, f.o)
	return f
}

// hipMtimes is every HIP source's tree mtime.
func (f *fixture) hipMtimes(t *testing.T) map[string]time.Time {
	out := map[string]time.Time{}
	for _, n := range []string{"a", "b", "c"} {
		fi, err := os.Stat(filepath.Join(f.tree, "mlx/backend/rocm", n+".hip"))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = fi.ModTime()
	}
	return out
}

func TestHeaderEditsMarkExactlyTheirHIPSources(t *testing.T) {
	f := hipFixture(t)
	f.run(t)
	edit := func(t *testing.T, what func(), want ...string) {
		t.Helper()
		time.Sleep(20 * time.Millisecond)
		before := f.hipMtimes(t)
		what()
		st := f.run(t)
		after := f.hipMtimes(t)
		var moved []string
		for _, n := range []string{"a", "b", "c"} {
			if !after[n].Equal(before[n]) {
				moved = append(moved, n)
			}
		}
		if !reflect.DeepEqual(moved, want) {
			t.Fatalf("sources marked %v, want %v (stats %+v)", moved, want, st)
		}
		if st2 := f.run(t); st2.Written+st2.Dependents+st2.Touched != 0 {
			t.Fatalf("the run after marked again: %+v", st2)
		}
	}
	overlay := func(rel, content string) func() {
		return func() {
			f.o[rel] = content
			writeFiles(t, f.overlay, files{rel: content})
		}
	}
	// port.h: only a.hip includes it (angled).
	edit(t, overlay("mlx/backend/rocm/port.h", "#pragma once // v2\n"), "a")
	// kernel.h: b.hip directly (next to it), a.hip through device.h.
	edit(t, overlay("mlx/backend/rocm/kernel.h", "#pragma once\n#include \"device.h\"\n#include \"../../dtype.h\"\n// v2\n"), "a", "b")
	// A core header from the pristine source, reached through the cycle.
	edit(t, func() {
		f.p["mlx/dtype.h"] = "// dtype v2\n"
		writeFiles(t, f.pristine, files{"mlx/dtype.h": "// dtype v2\n"})
	}, "a", "b")
	// A .hip edit is Ninja's to see; nothing else is marked.
	edit(t, overlay("mlx/backend/rocm/c.hip", "#include <hip/hip_runtime.h>\n// v2\n"), "c")
	// A bare touch of a header is passed on, and so are its sources.
	edit(t, func() {
		later := time.Now().Add(time.Second)
		os.Chtimes(filepath.Join(f.overlay, "mlx/backend/rocm/port.h"), later, later)
	}, "a")
	// An unrelated file changes nothing of the HIP sources.
	edit(t, overlay("mlx/backend/common/util.h", "// util v3\n"))
	// A header dropped from the overlay is gone from the tree: its sources are
	// marked, so the build fails on it instead of linking stale objects.
	edit(t, func() {
		delete(f.o, "mlx/backend/rocm/port.h")
		os.Remove(filepath.Join(f.overlay, "mlx/backend/rocm/port.h"))
	}, "a")
}

func TestIncludeNames(t *testing.T) {
	src := "#include \"a.h\"\n  # include <b/c.h>\n#includex \"no\"\n#include MACRO\n#include \"\"\nint x; #include \"no.h\"\n#import \"no\"\n\t#include\t\"d.h\""
	if got, want := includeNames([]byte(src)), []string{"a.h", "b/c.h", "d.h"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("includeNames: %q, want %q", got, want)
	}
}

// FuzzIncludeNames: every name found is a non-empty string taken from one
// #include line of the input.
func FuzzIncludeNames(f *testing.F) {
	f.Add([]byte("#include \"mlx/backend/rocm/device.h\"\n#include <hip/hip_runtime.h>\n"))
	f.Add([]byte("  #  include <a>\r\n#include \"b\" // c\n#include\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, n := range includeNames(src) {
			if n == "" || !containsLine(src, n) {
				t.Fatalf("name %q not from an include line of %q", n, src)
			}
		}
	})
}

func containsLine(src []byte, name string) bool {
	for l := range strings.Lines(string(src)) {
		if strings.Contains(l, "include") && strings.Contains(l, name) {
			return true
		}
	}
	return false
}
