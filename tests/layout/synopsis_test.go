package layout

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxSynopsis is how long the first sentence of a target's doc comment may
// be: `mage -l` prints it after the name, and the line should fit a terminal.
const maxSynopsis = 72

// TestTargetSynopsesAreShort reads the doc comment of every exported
// function of targets/ and the magefile and checks the first sentence, which
// `mage -l` prints, is short; the package comment Mage prints in full must
// be one line.
func TestTargetSynopsesAreShort(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "targets", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "magefile.go"))
	fset := token.NewFileSet()
	var pkg doc.Package
	checked := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) == "magefile.go" && f.Doc != nil {
			if text := strings.TrimSpace(f.Doc.Text()); strings.Contains(text, "\n") || len(text) > 100 {
				t.Errorf("magefile.go: the package comment is printed whole by mage -l; make it one short line:\n%s", text)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() || fn.Doc == nil || !isTarget(fn) {
				continue
			}
			syn := pkg.Synopsis(fn.Doc.Text())
			syn = strings.TrimPrefix(syn, fn.Name.Name+" ")
			checked++
			if len(syn) > maxSynopsis {
				t.Errorf("%s: %s: the synopsis mage -l prints is %d characters, more than %d: %q; end the first sentence sooner",
					fset.Position(fn.Pos()), fn.Name.Name, len(syn), maxSynopsis, syn)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d targets: the parse is broken", checked)
	}
}

// isTarget reports whether fn has a signature Mage makes a target of:
// parameters of the kinds Mage parses (pointers for optional flags), and no
// result or one error.
func isTarget(fn *ast.FuncDecl) bool {
	if r := fn.Type.Results; r != nil && (len(r.List) != 1 || types(r.List[0].Type) != "error") {
		return false
	}
	for _, p := range fn.Type.Params.List {
		switch strings.TrimPrefix(types(p.Type), "*") {
		case "context.Context", "string", "int", "bool", "float64", "time.Duration":
		default:
			return false
		}
	}
	return true
}

// types renders a parameter's type expression, enough for isTarget.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	}
	return "?"
}
