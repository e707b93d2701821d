package registry

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
)

// mayNameBackends are the non-test Go files that may spell a built-in
// backend's name, and why: each is that backend's own file, a Mage
// target that must be written out, or a use of one name for what it is
// (cpu, the base; rocm and cuda, the GPU families arch knows).
var mayNameBackends = map[string]string{
	"backends/cpu.go": "its registration", "backends/rocm.go": "its registration",
	"backends/cuda.go": "its registration", "backends/metal.go": "its registration",
	"configs/builtin_gen.go": "generated from the specs",
	"targets/build.go":       "Mage needs a method per target", "targets/verify.go": "Mage needs a method per target",
	"targets/plan.go": "Mage needs a method per target", "targets/bundle.go": "Mage needs a method per target",
	"backends/select.go":              "cpu is what no GPU backend selects",
	"internal/flow/depsfetch.go":      "cpu is the base every backend builds on",
	"internal/flow/doctor.go":         "cpu is the base every backend builds on",
	"arch/validate.go":                "the GPU families arch resolves",
	"arch/check.go":                   "the GPU families arch resolves",
	"internal/bundle/check.go":        "the GPU families arch checks",
	"backends/linkplan/read.go":       "imports no mlxbuild package, for parent repositories",
	"tests/reliability/kill9/main.go": "a test program that builds rocm",
}

// TestNoOtherFileListsBackends counts the places that spell a built-in
// backend's name: a file not in mayNameBackends that does is a list a new
// backend would have to be added to, which Names or the registry holds.
func TestNoOtherFileListsBackends(t *testing.T) {
	builtin := slices.Clone(configs.Names[:4]) // the fake one may be registered
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(builtin, s) && mayNameBackends[rel] == "" {
					t.Errorf("%s spells the backend %q: take it from configs.Names or the backends registry, or say in mayNameBackends why it may", rel, s)
					return false
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
