package cmake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// A CMake-generated build.ninja, ordered, builds what the original
// builds: the same commands; after an ordered build, plain Ninja on
// build.ninja has nothing to do; and a changed CMakeLists.txt still
// re-runs CMake before the ordered copy is made from its new manifest.
func TestOrderedCMakeManifestBuildsTheSame(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "cc")
	src, build := t.TempDir(), t.TempDir()
	lists := "cmake_minimum_required(VERSION 3.16)\nproject(p C)\nadd_library(l STATIC a.c b.c long.c)\nadd_executable(app main.c)\ntarget_link_libraries(app l)\n"
	files := map[string]string{"CMakeLists.txt": lists, "a.c": "int a(void){return 1;}\n", "b.c": "int b(void){return 2;}\n", "long.c": "int lng(void){return 3;}\n", "main.c": "int lng(void);\nint main(void){return lng()-3;}\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Configure(t.Context(), ConfigureOptions{Source: src, Build: build}); err != nil {
		t.Fatal(err)
	}
	d := Durations{"CMakeFiles/l.dir/long.c.o": 300 * time.Second, "CMakeFiles/l.dir/a.c.o": time.Second, "CMakeFiles/l.dir/b.c.o": time.Second, "CMakeFiles/app.dir/main.c.o": time.Second}
	res, err := Build(t.Context(), BuildOptions{Dir: build, Jobs: 1, Durations: d})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Ordered || len(res.Ran) == 0 || !strings.HasSuffix(res.Ran[0].Output, "long.c.o") {
		t.Errorf("ordered %v, ran %q: want long.c first", res.Ordered, stepsOf(res))
	}
	commands := func(manifest string) []string {
		out := testutil.RunOK(t, nil, build, "ninja", "-f", manifest, "-t", "commands")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		slices.Sort(lines)
		return lines
	}
	if a, b := commands("build.ninja"), commands(OrderedManifest); !slices.Equal(a, b) {
		t.Errorf("commands differ:\n%q\n%q", a, b)
	}
	if out := testutil.RunOK(t, nil, build, "ninja", "-n"); !strings.Contains(out, "no work to do") {
		t.Errorf("plain Ninja after the ordered build: %s", out)
	}
	// A new source in CMakeLists.txt: CMake re-runs, the copy follows.
	if err := os.WriteFile(filepath.Join(src, "c.c"), []byte("int c(void){return 4;}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "CMakeLists.txt"), []byte(strings.Replace(lists, "long.c", "long.c c.c", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = Build(t.Context(), BuildOptions{Dir: build, Jobs: 1, Durations: d})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Ran, func(s Step) bool { return strings.HasSuffix(s.Output, "c.c.o") }) {
		t.Errorf("after the CMakeLists.txt change ran %q, want c.c compiled", stepsOf(res))
	}
}
