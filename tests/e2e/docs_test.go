package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestMigratingDocIsTested keeps docs/migrating.md honest: the magefile and
// the two build scripts it shows (mlx-sys's, and runpath.rs that every
// crate above it names) must be the ones cargo_engine.txtar runs,
// byte for byte, and the build scripts those of examples/cargo-workspace
// (which tests/cargoworkspace runs for ROCm).
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
	for _, c := range []struct{ lang, file, example string }{
		{"go", "magefiles/magefile.go", ""},
		{"toml", ".cargo/config.toml", ".cargo/config.toml"},
		{"rust", "mlx-sys/build.rs", "mlx-sys/build.rs"},
		{"rust", "mlx-sys/runpath.rs", "mlx-sys/runpath.rs"},
	} {
		want := files[c.file]
		if want == "" {
			t.Fatalf("cargo_engine.txtar has no %s", c.file)
		}
		if !strings.Contains(string(doc), "```"+c.lang+"\n"+want+"```\n") {
			t.Errorf("docs/migrating.md does not show the %s that e2e/testdata/script/cargo_engine.txtar runs; copy it from there", c.file)
		}
		if c.example == "" {
			continue
		}
		example, err := os.ReadFile(filepath.Join("..", "..", "examples", "cargo-workspace", c.example))
		if err != nil {
			t.Fatal(err)
		}
		if string(example) != want {
			t.Errorf("cargo_engine.txtar's %s differs from examples/cargo-workspace/%s; the doc calls them the same", c.file, c.example)
		}
	}
}
