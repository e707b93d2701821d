package layout

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	gotypes "go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// An exported name is one entry of the module's surface: a package-level
// func, type, var or const, a method, or a struct field of a package-level
// type, with an exported name.
type exported struct {
	pkg  string // module-relative folder
	name string // Name, Type.Method or Type.Field (Type.Outer.Field for nested structs)
	kind string // func, type, var, const, method, field
	pos  token.Position
	// usedBy lists the other packages (module-relative folders, "+test"
	// when only their tests) whose code names it.
	usedBy []string
	// kept says why the name must stay exported although no other package
	// names it ("" when nothing justifies it).
	kept string
}

// surface is every exported name of the packages outside internal/ and
// tests/, with who uses it.
type surface struct {
	names []*exported
	// docs holds each public package's doc comment (module-relative
	// folder -> text, "" when it has none).
	docs map[string]string
}

// listEntry is what `go list -json` says of one package.
type listEntry struct {
	ImportPath   string
	Dir          string
	Export       string
	ForTest      string
	Module       *struct{ Path string }
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
}

// goList runs `go list -export -deps -test -json` in dir for goos (""
// for the host's): the module's packages with their files, and the export
// data of every dependency, so the checker needs no network and no tool
// beyond go.
func goList(t *testing.T, dir, goos string) []listEntry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-export", "-deps", "-test", "-e",
		"-json=ImportPath,Dir,Export,ForTest,Module,GoFiles,TestGoFiles,XTestGoFiles,Imports", "./...")
	cmd.Dir = dir
	if goos != "" {
		cmd.Env = append(os.Environ(), "GOOS="+goos)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	var out []listEntry
	dec := json.NewDecoder(&stdout)
	for {
		var e listEntry
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		out = append(out, e)
	}
	return out
}

// platforms are the GOOS values the surface is read for: the host's (""),
// and darwin, whose files (Metal's only platform) use names too.
var platforms = []string{"", "darwin"}

// loadSurface type-checks every package of the module rooted at root
// (module path mod) with its tests, for each of platforms, and returns
// the exported names of its public packages (those outside internal/ and
// tests/, less package main) with the other packages that use each.
func loadSurface(t *testing.T, root, mod string) *surface {
	t.Helper()
	merged := &surface{docs: map[string]string{}}
	byName := map[string]*exported{}
	for _, goos := range platforms {
		s := loadFor(t, root, mod, goos)
		for pkg, doc := range s.docs {
			if _, ok := merged.docs[pkg]; !ok {
				merged.docs[pkg] = doc
			}
		}
		for _, x := range s.names {
			m, ok := byName[x.pkg+" "+x.name]
			if !ok {
				byName[x.pkg+" "+x.name] = x
				merged.names = append(merged.names, x)
				continue
			}
			for _, by := range x.usedBy {
				if !slices.Contains(m.usedBy, by) {
					m.usedBy = append(m.usedBy, by)
				}
			}
			slices.Sort(m.usedBy)
			m.kept = cmp.Or(m.kept, x.kept)
		}
	}
	slices.SortFunc(merged.names, func(a, b *exported) int {
		return strings.Compare(a.pkg+" "+a.name, b.pkg+" "+b.name)
	})
	return merged
}

// loadFor is loadSurface for one GOOS.
func loadFor(t *testing.T, root, mod, goos string) *surface {
	t.Helper()
	entries := goList(t, root, goos)
	exports := map[string]string{}
	var own []listEntry
	for _, e := range entries {
		if strings.Contains(e.ImportPath, " [") || strings.HasSuffix(e.ImportPath, ".test") {
			continue // a package recompiled for a test, or a test binary
		}
		if e.Module != nil && e.Module.Path == mod {
			own = append(own, e)
		} else if e.Export != "" {
			exports[e.ImportPath] = e.Export
		}
	}
	folder := func(path string) string {
		if path == mod {
			return "."
		}
		return strings.TrimPrefix(path, mod+"/")
	}

	fset := token.NewFileSet()
	parse := func(dir string, names []string) []*ast.File {
		var files []*ast.File
		for _, n := range names {
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	fromExport := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	checked := map[string]*gotypes.Package{}
	reflected := map[token.Pos]bool{}
	imp := importerFunc(func(path string) (*gotypes.Package, error) {
		if p, ok := checked[path]; ok {
			return p, nil
		}
		return fromExport.Import(path)
	})
	// check type-checks files as package path, and returns its first type
	// error. A package's own code must check cleanly, or uses would go
	// unseen; its tests may not (a test file's values can come from the
	// package's other copy, through a helper package that imports it), and
	// only the names they resolve matter.
	check := func(path string, files []*ast.File) (*gotypes.Package, *gotypes.Info, error) {
		info := &gotypes.Info{Uses: map[*ast.Ident]gotypes.Object{}, Defs: map[*ast.Ident]gotypes.Object{}, Types: map[ast.Expr]gotypes.TypeAndValue{}}
		var first error
		conf := gotypes.Config{Importer: imp, Error: func(err error) { first = cmp.Or(first, err) }}
		pkg, _ := conf.Check(path, fset, files, info)
		encoded(files, info, reflected)
		return pkg, info, first
	}

	// `go list -deps` prints a package after everything it imports, so
	// checking in its order finds every module import already checked.
	var units []unit
	base := map[string][]*ast.File{}
	for _, e := range own {
		files := parse(e.Dir, e.GoFiles)
		base[e.ImportPath] = files
		pkg, info, err := check(e.ImportPath, files)
		if err != nil {
			t.Fatalf("type-checking %s (GOOS %q): %v", e.ImportPath, goos, err)
		}
		checked[e.ImportPath] = pkg
		units = append(units, unit{folder(e.ImportPath), info, false})
	}
	for _, e := range own {
		if len(e.TestGoFiles) > 0 {
			_, info, _ := check(e.ImportPath, append(slices.Clone(base[e.ImportPath]), parse(e.Dir, e.TestGoFiles)...))
			units = append(units, unit{folder(e.ImportPath), info, true})
		}
		if len(e.XTestGoFiles) > 0 {
			_, info, _ := check(e.ImportPath+"_test", parse(e.Dir, e.XTestGoFiles))
			units = append(units, unit{folder(e.ImportPath) + "_test", info, true})
		}
	}

	// Who names what: a declaration is keyed by its position, the same in
	// every copy of a package since the files are parsed once.
	users := map[token.Pos]map[string]bool{}
	for _, u := range units {
		for _, obj := range u.info.Uses {
			if obj.Pkg() == nil || !obj.Exported() {
				continue
			}
			by := u.folder
			if u.test {
				by += "+test"
			}
			if users[obj.Pos()] == nil {
				users[obj.Pos()] = map[string]bool{}
			}
			users[obj.Pos()][by] = true
		}
	}

	ifaces := interfaces(checked, units)
	s := &surface{docs: map[string]string{}}
	for _, e := range own {
		f := folder(e.ImportPath)
		pkg := checked[e.ImportPath]
		if pkg == nil || pkg.Name() == "main" || in(f, "internal") || in(f, "tests") {
			continue
		}
		s.docs[f] = ""
		for _, file := range base[e.ImportPath] {
			if file.Doc != nil {
				s.docs[f] += file.Doc.Text()
			}
		}
		for _, x := range exportedNames(fset, f, pkg, ifaces, reflected) {
			for by := range users[x.at] {
				owner := strings.TrimSuffix(strings.TrimSuffix(by, "+test"), "_test")
				if owner != f {
					x.usedBy = append(x.usedBy, by)
				}
			}
			slices.Sort(x.usedBy)
			s.names = append(s.names, x.exported)
		}
	}
	return s
}

// unit is one type-checked package: its folder ("+test" when it holds
// tests), and what its identifiers resolve to.
type unit struct {
	folder string
	info   *gotypes.Info
	test   bool
}

type importerFunc func(path string) (*gotypes.Package, error)

func (f importerFunc) Import(path string) (*gotypes.Package, error) { return f(path) }

// named is an interface someone may call a method through: a named
// interface of any package the module imports, the interfaces written
// in the module's code (`interface{ ExitStatus() int }` in an errors.As),
// and error.
type named struct {
	name  string
	iface *gotypes.Interface
}

func interfaces(checked map[string]*gotypes.Package, units []unit) []named {
	out := []named{{"error", gotypes.Universe.Lookup("error").Type().Underlying().(*gotypes.Interface)}}
	// The errors package calls these through interfaces it does not export.
	errorsPkg := gotypes.NewPackage("errors", "errors")
	errType := gotypes.Universe.Lookup("error").Type()
	method := func(name string, params, results []*gotypes.Var) *gotypes.Func {
		return gotypes.NewFunc(token.NoPos, errorsPkg, name, gotypes.NewSignatureType(nil, nil, nil, gotypes.NewTuple(params...), gotypes.NewTuple(results...), false))
	}
	v := func(t gotypes.Type) *gotypes.Var { return gotypes.NewParam(token.NoPos, errorsPkg, "", t) }
	for _, m := range []*gotypes.Func{
		method("Unwrap", nil, []*gotypes.Var{v(errType)}),
		method("Unwrap", nil, []*gotypes.Var{v(gotypes.NewSlice(errType))}),
		method("Is", []*gotypes.Var{v(errType)}, []*gotypes.Var{v(gotypes.Typ[gotypes.Bool])}),
		method("As", []*gotypes.Var{v(gotypes.Universe.Lookup("any").Type())}, []*gotypes.Var{v(gotypes.Typ[gotypes.Bool])}),
	} {
		out = append(out, named{"errors' interface{ " + m.Name() + " }", gotypes.NewInterfaceType([]*gotypes.Func{m}, nil).Complete()})
	}
	seen := map[*gotypes.Package]bool{}
	var visit func(p *gotypes.Package)
	visit = func(p *gotypes.Package) {
		if p == nil || seen[p] {
			return
		}
		seen[p] = true
		for _, n := range p.Scope().Names() {
			if tn, ok := p.Scope().Lookup(n).(*gotypes.TypeName); ok {
				if it, ok := tn.Type().Underlying().(*gotypes.Interface); ok && it.NumMethods() > 0 {
					out = append(out, named{p.Path() + "." + n, it})
				}
			}
		}
		for _, i := range p.Imports() {
			visit(i)
		}
	}
	for _, p := range checked {
		visit(p)
	}
	for _, u := range units {
		for _, tv := range u.info.Types {
			if it, ok := tv.Type.(*gotypes.Interface); ok && it.NumMethods() > 0 {
				out = append(out, named{"interface literal", it})
			}
		}
	}
	return out
}

// entry is an exported name with the position that keys its uses.
type entry struct {
	*exported
	at token.Pos
}

// exportedNames lists pkg's exported names and says, for methods and
// fields, whether something other than a call by name needs the exported
// spelling: an interface the method helps implement, or a decoder that
// reads the struct by reflection.
func exportedNames(fset *token.FileSet, folder string, pkg *gotypes.Package, ifaces []named, reflected map[token.Pos]bool) []entry {
	var out []entry
	add := func(obj gotypes.Object, name, kind, kept string) {
		out = append(out, entry{&exported{pkg: folder, name: name, kind: kind, pos: fset.Position(obj.Pos()), kept: kept}, obj.Pos()})
	}
	var fields func(owner string, st *gotypes.Struct, decoded bool)
	fields = func(owner string, st *gotypes.Struct, decoded bool) {
		for i := 0; i < st.NumFields(); i++ {
			f := st.Field(i)
			if inner, ok := f.Type().(*gotypes.Struct); ok {
				fields(owner+"."+f.Name(), inner, decoded || tagged(inner))
			}
			if !f.Exported() || f.Embedded() {
				continue // an embedded field is named by its type, listed on its own
			}
			kept := ""
			if decoded {
				kept = "a field of a struct decoded or encoded by reflection (it has yaml or json tags, or goes through encoding/json)"
			}
			add(f, owner+"."+f.Name(), "field", kept)
		}
	}
	scope := pkg.Scope()
	for _, n := range scope.Names() {
		obj := scope.Lookup(n)
		if obj.Exported() {
			kind := map[reflect.Type]string{
				reflect.TypeOf(&gotypes.Func{}): "func", reflect.TypeOf(&gotypes.TypeName{}): "type",
				reflect.TypeOf(&gotypes.Var{}): "var", reflect.TypeOf(&gotypes.Const{}): "const",
			}[reflect.TypeOf(obj)]
			add(obj, n, kind, "")
		}
		tn, ok := obj.(*gotypes.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		nt, ok := tn.Type().(*gotypes.Named)
		if !ok {
			continue
		}
		if st, ok := nt.Underlying().(*gotypes.Struct); ok {
			fields(n, st, tagged(st) || reflected[tn.Pos()])
		}
		for i := 0; i < nt.NumMethods(); i++ {
			m := nt.Method(i)
			if m.Exported() {
				add(m, n+"."+m.Name(), "method", implements(nt, m.Name(), ifaces))
			}
		}
	}
	return out
}

// tagged reports whether a struct has a field with a yaml or json tag: the
// mark of a type that a decoder fills (or an encoder writes) by
// reflection, which sees exported fields only.
func tagged(st *gotypes.Struct) bool {
	for i := 0; i < st.NumFields(); i++ {
		tag := reflect.StructTag(st.Tag(i))
		if _, ok := tag.Lookup("yaml"); ok {
			return true
		}
		if _, ok := tag.Lookup("json"); ok {
			return true
		}
	}
	return false
}

// implements names an interface that has method and that t or *t
// implements: renaming the method would silently break that.
func implements(t *gotypes.Named, method string, ifaces []named) string {
	for _, i := range ifaces {
		has := false
		for j := 0; j < i.iface.NumMethods(); j++ {
			has = has || i.iface.Method(j).Name() == method
		}
		if has && (gotypes.Implements(t, i.iface) || gotypes.Implements(gotypes.NewPointer(t), i.iface)) {
			return "implements " + i.name
		}
	}
	return ""
}

// counts sums the surface: all exported names, those another package
// uses, those kept for a reason, and the rest (unused).
func (s *surface) counts() (all, used, kept, unused int) {
	for _, x := range s.names {
		all++
		switch {
		case len(x.usedBy) > 0:
			used++
		case x.kept != "":
			kept++
		default:
			unused++
		}
	}
	return
}

// report writes one line per exported name: package, name, kind, and who
// uses it (or why it is kept, or "unused").
func (s *surface) report(w io.Writer) {
	for _, x := range s.names {
		state := "unused"
		switch {
		case len(x.usedBy) > 0:
			state = "used by " + strings.Join(x.usedBy, ",")
		case x.kept != "":
			state = "kept: " + x.kept
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", x.pkg, x.name, x.kind, state)
	}
	all, used, kept, unused := s.counts()
	fmt.Fprintf(w, "total %d exported names: %d used by another package, %d kept for a reason, %d unused\n", all, used, kept, unused)
}

// jsonCalls are the functions and methods of encoding/json that read or
// write a value's exported fields by reflection.
var jsonCalls = map[string]bool{"Marshal": true, "MarshalIndent": true, "Unmarshal": true, "Encode": true, "Decode": true}

// encoded marks, in reflected (by the position of their type name), the
// struct types that files hand to encoding/json, and the struct types of
// their fields: renaming their fields would change what is written or
// silently drop what is read.
func encoded(files []*ast.File, info *gotypes.Info, reflected map[token.Pos]bool) {
	var mark func(t gotypes.Type)
	mark = func(t gotypes.Type) {
		// Through pointers, slices, arrays and map values to the element.
		for {
			e, ok := t.(interface{ Elem() gotypes.Type })
			if !ok {
				break
			}
			t = e.Elem()
		}
		n, ok := t.(*gotypes.Named)
		if !ok || reflected[n.Obj().Pos()] {
			return
		}
		st, ok := n.Underlying().(*gotypes.Struct)
		if !ok {
			return
		}
		reflected[n.Obj().Pos()] = true
		for i := 0; i < st.NumFields(); i++ {
			mark(st.Field(i).Type())
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			fn, ok := info.Uses[sel.Sel].(*gotypes.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "encoding/json" || !jsonCalls[fn.Name()] {
				return true
			}
			for _, arg := range call.Args {
				if tv, ok := info.Types[arg]; ok {
					mark(tv.Type)
				}
			}
			return true
		})
	}
}
