package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// startupParses are the calls that compile or parse something (a regular
// expression, a version or a constraint: go-version compiles its own
// expression on its first parse). Made in a package-level variable or an
// init function, they run at every start of the binary, for every target,
// although a no-op build uses a handful (docs/benchmarks.md, "Where the
// no-op's extra CPU went"): such a value is made on first use instead
// (internal/lazyregexp, sync.OnceValue).
var startupParses = map[string]bool{
	"regexp.MustCompile": true, "regexp.Compile": true, "regexp.MustCompilePOSIX": true,
	"version.NewVersion": true, "version.Must": true, "version.NewConstraint": true, "version.NewSemver": true,
}

// parsesAtStartup lists, as "file:line: call", each such call that runs
// when the package is initialized: in a package-level variable's value or
// in an init function, outside any function literal (which runs later).
func parsesAtStartup(fset *token.FileSet, f *ast.File) []string {
	var found []string
	look := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && startupParses[pkg.Name+"."+sel.Sel.Name] {
						found = append(found, fset.Position(n.Pos()).String()+": "+pkg.Name+"."+sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				look(d)
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				look(d.Body)
			}
		}
	}
	return found
}

// TestNothingIsParsedAtStartup checks every non-test file of the module.
func TestNothingIsParsedAtStartup(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	eachSourceFile(t, filepath.Join("..", ".."), fset, func(_ string, f *ast.File) {
		files++
		for _, at := range parsesAtStartup(fset, f) {
			t.Errorf("%s runs at every start of the binary; make the value on first use (internal/lazyregexp, sync.OnceValue)", at)
		}
	})
	if files < 100 {
		t.Fatalf("only %d Go files found: the walk is broken", files)
	}
}

// TestStartupRuleCatchesViolations feeds the rule what it must refuse and
// what it must let pass.
func TestStartupRuleCatchesViolations(t *testing.T) {
	src := `package p
var a = regexp.MustCompile("x")
var b, c = 1, version.Must(version.NewVersion("12.9"))
var d = struct{ r *regexp.Regexp }{regexp.MustCompile("y")}
func init() { _ = version.NewConstraint(">= 1") }
var lazy = sync.OnceValue(func() *version.Version { return version.Must(version.NewVersion("1")) })
var e = lazyregexp.New("z")
func f() { _ = regexp.MustCompile("w") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(parsesAtStartup(fset, f), "\n")
	want := strings.Join([]string{
		"p.go:2:9: regexp.MustCompile",
		"p.go:3:15: version.Must",
		"p.go:3:28: version.NewVersion",
		"p.go:4:36: regexp.MustCompile",
		"p.go:5:19: version.NewConstraint",
	}, "\n")
	if got != want {
		t.Errorf("found:\n%s\nwant:\n%s", got, want)
	}
}
