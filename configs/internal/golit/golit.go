// Package golit prints a Go value as Go source: a composite literal that,
// compiled into the package named Local, evaluates to a value
// reflect.DeepEqual to the one printed. The spec generator uses it to turn
// the parsed built-in specs into code, so a run of mlxbuild allocates them
// instead of parsing YAML.
//
// It covers what a parsed spec holds: structs (unexported fields
// included: reflection reads them, and the literal is compiled inside
// their package), pointers to structs, slices, arrays, maps (keys sorted,
// so the output is stable), strings, bools, integers and floats. Zero
// fields are left out, which keeps nil and empty apart exactly as
// DeepEqual does: a nil slice is zero, an empty one is not. Anything else
// (interfaces, funcs, channels, shared pointers' identity) is an error or
// not preserved; no spec type has them.
//
// A literal longer than lineWidth gets an element per line; the caller
// indents the file with go/format. golit itself imports nothing of go/*,
// so that the package that uses it does not make every mlxbuild run
// initialize the parser.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package golit

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Printer prints values for code compiled in package Local (its import
// path); types of other packages are qualified by their package name and
// recorded in Imports.
type Printer struct {
	Local   string
	imports map[string]bool
}

// Imports are the import paths the printed literals need, sorted.
func (p *Printer) Imports() []string {
	out := make([]string, 0, len(p.imports))
	for path := range p.imports {
		out = append(out, path)
	}
	sort.Strings(out)
	return out
}

// Expr returns v as a Go expression.
func (p *Printer) Expr(v any) (string, error) {
	return p.value(reflect.ValueOf(v), "value", false)
}

// lineWidth is how long a literal may be on one line; a longer one, or one
// holding a literal that is already split, gets an element per line.
const lineWidth = 100

// value prints v; at is the path to it, for errors. elide leaves out the
// type (and a pointer's &) of a composite literal, as Go allows for the
// elements and keys of a slice, array or map literal.
func (p *Printer) value(v reflect.Value, at string, elide bool) (string, error) {
	switch v.Kind() {
	case reflect.Invalid:
		return "", fmt.Errorf("golit: %s is an untyped nil", at)
	case reflect.String:
		return strconv.Quote(v.String()), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "", fmt.Errorf("golit: %s is %v, which has no Go literal", at, f)
		}
		// The shortest text that parses back to the same bits.
		return strconv.FormatFloat(f, 'g', -1, v.Type().Bits()), nil
	case reflect.Pointer:
		if v.IsNil() {
			return "nil", nil
		}
		if v.Elem().Kind() != reflect.Struct {
			return "", fmt.Errorf("golit: %s points to a %s; only pointers to structs have a literal (&T{...})", at, v.Elem().Kind())
		}
		s, err := p.value(v.Elem(), at, elide)
		if err != nil || elide {
			return s, err
		}
		return "&" + s, nil
	case reflect.Struct:
		return p.structLit(v, at, elide)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "nil", nil
		}
		elems := make([]string, v.Len())
		for i := range elems {
			s, err := p.value(v.Index(i), fmt.Sprintf("%s[%d]", at, i), true)
			if err != nil {
				return "", err
			}
			elems[i] = s
		}
		return p.composite(v.Type(), elide, elems), nil
	case reflect.Map:
		return p.mapLit(v, at, elide)
	}
	return "", fmt.Errorf("golit: %s is a %s, which golit does not print", at, v.Kind())
}

// composite is T{e1, e2, ...}: on one line when short and flat, else an
// element per line (gofmt indents them).
func (p *Printer) composite(t reflect.Type, elide bool, elems []string) string {
	name := ""
	if !elide {
		name = p.typeName(t)
	}
	one := name + "{" + strings.Join(elems, ", ") + "}"
	if len(one) <= lineWidth && !strings.Contains(one, "\n") {
		return one
	}
	return name + "{\n" + strings.Join(elems, ",\n") + ",\n}"
}

// structLit prints T{Field: value, ...} with the zero fields left out.
func (p *Printer) structLit(v reflect.Value, at string, elide bool) (string, error) {
	t := v.Type()
	var fields []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if v.Field(i).IsZero() {
			continue
		}
		if !f.IsExported() && t.PkgPath() != p.Local {
			return "", fmt.Errorf("golit: %s.%s is unexported in %s, so code in %s cannot set it", at, f.Name, t.PkgPath(), p.Local)
		}
		s, err := p.value(v.Field(i), at+"."+f.Name, false)
		if err != nil {
			return "", err
		}
		fields = append(fields, f.Name+": "+s)
	}
	return p.composite(t, elide, fields), nil
}

// mapLit prints map[K]V{k: v, ...} in the order of the keys' printed
// text, so two runs print the same file.
func (p *Printer) mapLit(v reflect.Value, at string, elide bool) (string, error) {
	if v.IsNil() {
		return "nil", nil
	}
	type entry struct{ key, val string }
	var entries []entry
	for it := v.MapRange(); it.Next(); {
		k, err := p.value(it.Key(), at+" key", true)
		if err != nil {
			return "", err
		}
		val, err := p.value(it.Value(), at+"["+k+"]", true)
		if err != nil {
			return "", err
		}
		entries = append(entries, entry{k, val})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	elems := make([]string, len(entries))
	for i, e := range entries {
		elems[i] = e.key + ": " + e.val
	}
	return p.composite(v.Type(), elide, elems), nil
}

// typeName is t as written in package Local.
func (p *Printer) typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" || t.PkgPath() == p.Local {
			return t.Name() // predeclared, or Local's own
		}
		if p.imports == nil {
			p.imports = map[string]bool{}
		}
		p.imports[t.PkgPath()] = true
		return pkgName(t.PkgPath()) + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + p.typeName(t.Elem())
	case reflect.Slice:
		return "[]" + p.typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + p.typeName(t.Elem())
	case reflect.Map:
		return "map[" + p.typeName(t.Key()) + "]" + p.typeName(t.Elem())
	}
	return t.String()
}

// pkgName is the name a package is referred to by: the last element of
// its path, which is what every package golit meets is named.
func pkgName(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }
