package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDeclared feeds arbitrary CMake text to the declaration scanner: it
// must not fail on any input, and every name it returns must be a name
// FetchContent accepts, lower-cased.
func FuzzDeclared(f *testing.F) {
	for _, s := range []string{"FetchContent_Declare(json URL x)", "FetchContent_Declare(\n\tfmt\n GIT_REPOSITORY x)", "#FetchContent_Declare(x)", "FetchContent_Declare(", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		names, err := Declared(dir)
		if err != nil {
			t.Fatal(err)
		}
		for n := range names {
			if n == "" || n != strings.ToLower(n) || strings.ContainsAny(n, " \t\n()#") {
				t.Errorf("name %q from %q", n, text)
			}
			if !strings.Contains(strings.ToLower(text), n) {
				t.Errorf("name %q is not in the text %q", n, text)
			}
		}
	})
}
