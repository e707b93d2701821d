package layout

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
)

const module = "github.com/mlxbuild/mlxbuild"

// startsProcess stands, in the graph, for a call that starts a process
// without internal/proc.
const startsProcess = "(exec.Command)"

// imports maps each package folder of the module (slash path relative to
// the root, "." for the root) to what its non-test files import, read with
// go/parser so the test needs no tool and sees every platform's files. A
// call of exec.Command or exec.CommandContext counts as importing
// startsProcess.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	eachSourceFile(t, root, fset, func(path string, f *ast.File) {
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		add := func(p string) {
			if !slices.Contains(out[rel], p) {
				out[rel] = append(out[rel], p)
			}
		}
		execName := ""
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			add(p)
			if p == "os/exec" {
				execName = "exec"
				if imp.Name != nil {
					execName = imp.Name.Name
				}
			}
		}
		if execName != "" {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == execName && (sel.Sel.Name == "Command" || sel.Sel.Name == "CommandContext") {
						add(startsProcess)
					}
				}
				return true
			})
		}
		if _, ok := out[rel]; !ok {
			out[rel] = nil
		}
	})
	return out
}

// eachSourceFile parses every non-test Go file of the module under root
// (testdata, target and hidden folders aside) and hands it to fn.
func eachSourceFile(t *testing.T, root string, fset *token.FileSet, fn func(path string, f *ast.File)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "target" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// in reports whether the module-relative folder pkg is room or inside it.
func in(pkg, room string) bool { return pkg == room || strings.HasPrefix(pkg, room+"/") }

// local turns an import path of this module into its folder, "" otherwise.
func local(imp string) string {
	if imp == module {
		return "."
	}
	if r, ok := strings.CutPrefix(imp, module+"/"); ok {
		return r
	}
	return ""
}

// rule is one thing a room must not import.
type rule struct {
	why     string
	applies func(pkg string) bool
	forbids func(imp string) bool
}

func localIn(rooms ...string) func(string) bool {
	return func(imp string) bool {
		l := local(imp)
		if l == "" {
			return false
		}
		for _, r := range rooms {
			if in(l, r) {
				return true
			}
		}
		return false
	}
}

func pkgIn(rooms ...string) func(string) bool {
	return func(pkg string) bool {
		for _, r := range rooms {
			if in(pkg, r) {
				return true
			}
		}
		return false
	}
}

var rules = []rule{
	{"only targets/ and the magefile know Mage",
		func(pkg string) bool { return pkg != "." && !in(pkg, "targets") },
		func(imp string) bool { return in(imp, "github.com/magefile/mage") }},
	{"configs/ reads files and runs no processes",
		pkgIn("configs"),
		func(imp string) bool {
			// internal/gitrun is allowed for its pure checks of revisions and
			// URLs (CheckRev, CheckRepo), which the project file needs.
			return imp == startsProcess || localIn("internal/proc", "internal/cmake", "internal/compilecache")(imp)
		}},
	{"overlays/ materializes trees and syncs forks; it does not know backends' link code or the build flow",
		pkgIn("overlays"), localIn("backends", "internal/flow", "internal/cmake", "internal/compilecache", "targets")},
	{"arch/ resolves architectures; it does not know CMake, backends or the flow",
		pkgIn("arch"), localIn("internal/cmake", "backends", "internal/flow", "configs", "targets")},
	{"cache/ is layout, stamps, records and locks: it copies no source and runs no process",
		pkgIn("cache"), func(imp string) bool {
			return imp == startsProcess || localIn("overlays", "internal/proc", "internal/gitrun", "internal/cmake", "internal/flow", "backends", "arch", "targets")(imp)
		}},
	{"the rooms of the design card sit below the orchestration: none imports internal/flow or targets",
		pkgIn("configs", "backends", "arch", "overlays", "cache", "internal/cmake", "internal/compilecache", "internal/verify", "internal/proc", "internal/fail", "internal/atomicfile", "internal/ui", "internal/gitrun"),
		localIn("internal/flow", "targets")},
	{"the error model and the atomic writer are leaves",
		pkgIn("internal/fail", "internal/atomicfile"), func(imp string) bool { return local(imp) != "" }},
	{"backends/linkplan is what a parent repository imports to read link.json: it brings no other mlxbuild package along",
		pkgIn("backends/linkplan"), func(imp string) bool { return local(imp) != "" }},
	{"no package imports a test harness",
		func(pkg string) bool { return !in(pkg, "tests") }, localIn("tests")},
	{"processes start through internal/proc only (it makes them die with mlxbuild)",
		func(pkg string) bool { return !in(pkg, "internal/proc") && !in(pkg, "tests") },
		func(imp string) bool { return imp == startsProcess }},
}

// TestRoomsImportOnlyWhatTheyMay checks every package of the module
// against the rules above, so a change that blurs a room fails here with
// the rule it breaks.
func TestRoomsImportOnlyWhatTheyMay(t *testing.T) {
	graph := imports(t, filepath.Join("..", ".."))
	for _, must := range []string{".", "targets", "configs", "overlays/forksync", "internal/flow", "cache", "arch"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("package %s not found: the walk is broken (found %d packages)", must, len(graph))
		}
	}
	for pkg, imps := range graph {
		for _, imp := range imps {
			for _, r := range rules {
				if r.applies(pkg) && r.forbids(imp) {
					t.Errorf("%s imports %s: %s", pkg, imp, r.why)
				}
			}
		}
	}
}

// TestRulesCatchViolations feeds each rule an import it must refuse, so a
// rule that can no longer fail is caught too.
func TestRulesCatchViolations(t *testing.T) {
	cases := []struct{ pkg, imp string }{
		{"internal/flow", "github.com/magefile/mage/mg"},
		{"configs", startsProcess},
		{"overlays/forksync", module + "/internal/flow"},
		{"overlays", module + "/backends"},
		{"arch", module + "/internal/cmake"},
		{"cache", module + "/overlays"},
		{"backends", module + "/internal/flow"},
		{"internal/fail", module + "/configs"},
		{"backends/linkplan", module + "/configs"},
		{"internal/flow", module + "/tests/e2e"},
		{"internal/cmake", startsProcess},
		{".", startsProcess},
	}
	for _, c := range cases {
		caught := false
		for _, r := range rules {
			caught = caught || r.applies(c.pkg) && r.forbids(c.imp)
		}
		if !caught {
			t.Errorf("%s importing %s passes every rule", c.pkg, c.imp)
		}
	}
}
