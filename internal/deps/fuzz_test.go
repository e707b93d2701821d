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

// FuzzParseDeclared feeds arbitrary record files to the reader of
// DeclaredCached's records: it must not fail, and a record it accepts must
// hold only names Declared can return, and be exactly what formatDeclared
// writes for them.
func FuzzParseDeclared(f *testing.F) {
	key := `"/cache/rocm/tree" "/cache/rocm/tree.manifest" 420 5 1 2 3 4`
	for _, s := range []string{declaredHeader + "\n" + key + "\njson\nfmt\n", declaredHeader + "\n" + key + "\n", declaredHeader + "\n" + key + "\njson", "", "\n\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		names, ok := parseDeclared([]byte(data), key)
		if !ok {
			return
		}
		for n := range names {
			if !declaredName(n) {
				t.Errorf("name %q accepted from %q", n, data)
			}
		}
		if again, ok := parseDeclared(formatDeclared(key, names), key); !ok || len(again) != len(names) {
			t.Errorf("%q: names %v do not survive a rewrite: %v", data, names, again)
		}
	})
}
