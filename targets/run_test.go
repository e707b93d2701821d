package targets

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/magefile/mage/parse"
)

// TestEveryTargetGoesThroughRunTarget reads this package as Mage does
// (mage/parse, the parser behind `mage -l` and mage:import) and holds every
// target it finds to one body: `return runTarget(ctx, "<its name>", ...)`,
// directly or through an unexported helper that is that one call. A target
// added without it, or named in its messages as it is not typed, fails
// here.
func TestEveryTargetGoesThroughRunTarget(t *testing.T) {
	names, problems := unwrappedTargets(t, ".")
	for _, p := range problems {
		t.Error(p)
	}
	// The targets that once ran without signal handling, and one of each
	// other shape, must be among those checked: a parser that saw nothing
	// would pass every rule.
	for _, want := range []string{"build:cargo", "deps:fetch", "overlay:apiDrift", "overlay:sync", "overlay:drift", "cache:clean", "bench:compare", "arch:check", "gpu:idle", "doctor", "build:rocm", "verify:cpu"} {
		if !names[want] {
			t.Errorf("Mage's parser found no target %s in package targets (found %d)", want, len(names))
		}
	}
}

// TestUnwrappedTargetsCatchesViolations feeds the check a stand-in package
// whose targets skip runTarget in each way it must refuse.
func TestUnwrappedTargetsCatchesViolations(t *testing.T) {
	dir := t.TempDir()
	src := `package standin

import (
	"context"

	"github.com/magefile/mage/mg"
)

type Build mg.Namespace

func runTarget(ctx context.Context, name string, work func(context.Context) error) error { return work(ctx) }

func build(ctx context.Context, backend string) error {
	return runTarget(ctx, "build:"+backend, func(context.Context) error { return nil })
}

func bare(ctx context.Context) error { return nil }

// Wrapped is as every target must be.
func (Build) Wrapped(ctx context.Context) error {
	return runTarget(ctx, "build:wrapped", func(context.Context) error { return nil })
}

// Helper goes through a helper that wraps.
func (Build) Helper(ctx context.Context) error { return build(ctx, "helper") }

// Bare never calls runTarget.
func (Build) Bare(ctx context.Context) error { return bare(ctx) }

// Misnamed says another target's name in its messages.
func (Build) Misnamed(ctx context.Context) error { return build(ctx, "other") }

// Later does work before the wrapper.
func Later(ctx context.Context) error {
	_ = ctx
	return runTarget(ctx, "later", func(context.Context) error { return nil })
}
`
	if err := os.WriteFile(filepath.Join(dir, "standin.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	names, problems := unwrappedTargets(t, dir)
	if len(names) != 5 {
		t.Errorf("found targets %v, want the stand-in's 5", names)
	}
	got := strings.Join(problems, "\n")
	for _, want := range []string{"build:bare", "build:misnamed", "later"} {
		if !strings.Contains(got, want+":") {
			t.Errorf("the check lets %s through; problems:\n%s", want, got)
		}
	}
	for _, ok := range []string{"build:wrapped:", "build:helper:"} {
		if strings.Contains(got, ok) {
			t.Errorf("the check refuses %s, which goes through runTarget:\n%s", strings.TrimSuffix(ok, ":"), got)
		}
	}
}

// unwrappedTargets lists the targets Mage finds in dir (by the name the
// user types) and a problem for each that is not a single runTarget call
// carrying that name.
func unwrappedTargets(t *testing.T, dir string) (map[string]bool, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			srcs = append(srcs, filepath.Base(f))
		}
	}
	info, err := parse.Package(dir, srcs, false)
	if err != nil {
		t.Fatal(err)
	}
	// Mage's own syntax trees keep only exported declarations; the helpers
	// a target calls are read here.
	decls := map[string]*ast.FuncDecl{} // "Receiver.Name" or "Name"
	for _, name := range srcs {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls[declKey(fd)] = fd
			}
		}
	}
	names := map[string]bool{}
	var problems []string
	for _, fn := range info.Funcs {
		name := lowerFirst(fn.Name)
		key := fn.Name
		if fn.Receiver != "" {
			name = lowerFirst(fn.Receiver) + ":" + name
			key = fn.Receiver + "." + fn.Name
		}
		names[name] = true
		fd := decls[key]
		if fd == nil {
			problems = append(problems, name+": Mage lists it, but no declaration was found")
			continue
		}
		if why := wrapsAs(fd, name, decls); why != "" {
			problems = append(problems, name+": "+why)
		}
	}
	return names, problems
}

// wrapsAs says why fd's body is not `return runTarget(ctx, name, ...)`,
// directly or through an unexported function whose body is that call with
// a name made of a literal and its parameters; "" when it is.
func wrapsAs(fd *ast.FuncDecl, name string, decls map[string]*ast.FuncDecl) string {
	call := onlyReturnedCall(fd)
	if call == nil {
		return "its body must be the one statement `return runTarget(ctx, \"" + name + "\", ...)`, so signals, the options of Use and the exit status reach it"
	}
	callee, ok := call.Fun.(*ast.Ident)
	if !ok {
		return "it returns a call that is not runTarget"
	}
	if callee.Name == "runTarget" {
		if got, ok := stringOf(call.Args[1], nil); !ok || got != name {
			return "runTarget is given the name " + exprString(call.Args[1]) + "; give " + strconv.Quote(name) + ", as the user types it"
		}
		return ""
	}
	helper := decls[callee.Name]
	if helper == nil || ast.IsExported(callee.Name) {
		return "it calls " + callee.Name + ", not runTarget"
	}
	inner := onlyReturnedCall(helper)
	if inner == nil || !isIdent(inner.Fun, "runTarget") {
		return "it calls " + callee.Name + ", whose body is not the one statement `return runTarget(...)`"
	}
	params := map[string]string{}
	i := 0
	for _, field := range helper.Type.Params.List {
		for _, n := range field.Names {
			if i < len(call.Args) {
				if v, ok := stringOf(call.Args[i], nil); ok {
					params[n.Name] = v
				}
			}
			i++
		}
	}
	if got, ok := stringOf(inner.Args[1], params); !ok || got != name {
		return callee.Name + " gives runTarget the name " + exprString(inner.Args[1]) + " for this target; it must come to " + strconv.Quote(name)
	}
	return ""
}

// onlyReturnedCall is the call of a body that is one return statement.
func onlyReturnedCall(fd *ast.FuncDecl) *ast.CallExpr {
	if fd.Body == nil || len(fd.Body.List) != 1 {
		return nil
	}
	ret, ok := fd.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil
	}
	call, _ := ret.Results[0].(*ast.CallExpr)
	if call != nil && isIdent(call.Fun, "runTarget") && len(call.Args) < 3 {
		return nil
	}
	return call
}

// stringOf evaluates a string literal, a parameter given a literal, or
// their concatenation.
func stringOf(e ast.Expr, params map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		s, ok := params[e.Name]
		return s, ok
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		l, lok := stringOf(e.X, params)
		r, rok := stringOf(e.Y, params)
		return l + r, lok && rok
	}
	return "", false
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Value
	case *ast.Ident:
		return e.Name
	case *ast.BinaryExpr:
		return exprString(e.X) + " + " + exprString(e.Y)
	}
	return "an expression"
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func declKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	if id, ok := fd.Recv.List[0].Type.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return "?." + fd.Name.Name
}

// lowerFirst is Mage's spelling of a name on the command line: Build ->
// build, ApiDrift -> apiDrift.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
