package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestMigratingDocIsTested keeps docs/migrating.md honest: its magefile and
// build.rs must be the ones cargo_engine.txtar runs, byte for byte.
func TestMigratingDocIsTested(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "migrating.md"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := txtar.ParseFile(filepath.Join("testdata", "script", "cargo_engine.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	for _, c := range []struct{ lang, file string }{
		{"go", "magefiles/magefile.go"},
		{"rust", "build.rs"},
	} {
		want := files[c.file]
		if want == "" {
			t.Fatalf("cargo_engine.txtar has no %s", c.file)
		}
		if !strings.Contains(string(doc), "```"+c.lang+"\n"+want+"```\n") {
			t.Errorf("docs/migrating.md does not show the %s that e2e/testdata/script/cargo_engine.txtar runs; copy it from there", c.file)
		}
	}
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "cargo-consumer", "build.rs"))
	if err != nil {
		t.Fatal(err)
	}
	if string(example) != files["build.rs"] {
		t.Errorf("cargo_engine.txtar's build.rs differs from examples/cargo-consumer/build.rs; the doc calls them the same")
	}
}
