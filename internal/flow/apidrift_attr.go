package flow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// attribution maps a build's diagnostics to the files the user must edit.
type attribution struct {
	tree, overlay string
}

// rel is file relative to the tree, and whether it is in the tree.
func (a attribution) rel(file string) (string, bool) {
	r, err := filepath.Rel(a.tree, file)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
		return file, false
	}
	return filepath.ToSlash(r), true
}

// inOverlay says whether the tree file rel comes from the overlay.
func (a attribution) inOverlay(rel string) bool {
	if a.overlay == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(a.overlay, filepath.FromSlash(rel)))
	return err == nil
}

// overlayVia is the first place of d's context (gcc's "required from"
// chain, clang's instantiation notes, the notes after it) that is an
// overlay file of the tree: where a template or constructor break in a
// system or upstream header must be fixed.
func (a attribution) overlayVia(d cmake.Diagnostic) (fail.Pos, bool) {
	for _, v := range d.Via {
		if r, in := a.rel(v.File); in && a.inOverlay(r) {
			v.File = r
			return v, true
		}
	}
	return fail.Pos{}, false
}

// groupErrors groups diagnostics by the file to edit, relative to the tree,
// each file:line:message once. An error reported outside the overlay (in a
// system header, or an upstream file) that the compiler says was reached
// from an overlay file is that file's, with where it was reported; clang
// gives that context to the first of several errors, so a following error
// in the same header takes the same file. An upstream file's errors name
// the overlay files it includes: a core file the overlay has not moved to
// the candidate is their likely cause.
func groupErrors(diags []cmake.Diagnostic, tree, overlay string) []FileErrors {
	a := attribution{tree: tree, overlay: overlay}
	byFile := map[string]*FileErrors{}
	seen := map[string]bool{}
	var order []string
	var lastFile string
	var lastVia *fail.Pos
	for _, d := range diags {
		rel, in := a.rel(d.File)
		own := in && a.inOverlay(rel)
		if !own {
			via, ok := a.overlayVia(d)
			switch {
			case ok:
				lastVia = &via
			case d.File != "" && d.File == lastFile && lastVia != nil:
				via, ok = *lastVia, true
			default:
				lastVia = nil
			}
			if ok {
				where := rel
				if d.Line > 0 {
					where = fail.Pos{File: rel, Line: d.Line}.String()
				}
				d.Message = fmt.Sprintf("%s (reported in %s)", d.Message, where)
				rel, in, own = via.File, true, true
				d.Line, d.Col = via.Line, via.Col
			}
		}
		lastFile = d.File
		key := rel + "\x00" + strconv.Itoa(d.Line) + "\x00" + d.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		fe := byFile[rel]
		if fe == nil {
			fe = &FileErrors{File: rel, InOverlay: own}
			if in && !own {
				fe.Includes = a.overlayIncludes(rel)
			}
			byFile[rel] = fe
			order = append(order, rel)
		}
		d.File, d.Via = rel, nil
		fe.Errors = append(fe.Errors, d)
	}
	slices.Sort(order)
	out := make([]FileErrors, 0, len(order))
	for _, f := range order {
		out = append(out, *byFile[f])
	}
	return out
}

var includeRE = lazyregexp.New(`(?m)^\s*#\s*include\s*["<]([^">]+)[">]`)

// overlayIncludes are the overlay files the tree file rel includes
// directly (by a path from the tree's root or its own directory).
func (a attribution) overlayIncludes(rel string) []string {
	data, err := os.ReadFile(filepath.Join(a.tree, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range includeRE.FindAllStringSubmatch(string(data), -1) {
		for _, c := range []string{m[1], filepath.ToSlash(filepath.Join(filepath.Dir(rel), m[1]))} {
			if _, err := os.Stat(filepath.Join(a.tree, filepath.FromSlash(c))); err == nil && a.inOverlay(c) && !slices.Contains(out, c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// notOwnPrefixes are the special symbols nm names around a class or
// function: what follows is the name whose namespace counts.
var notOwnPrefixes = []string{"vtable for ", "typeinfo for ", "typeinfo name for ", "VTT for ", "construction vtable for ", "non-virtual thunk to ", "virtual thunk to ", "guard variable for "}

// mlxSymbol says whether a demangled symbol is MLX's: in its namespace.
func mlxSymbol(sym string) bool {
	for _, p := range notOwnPrefixes {
		sym = strings.TrimPrefix(sym, p)
	}
	return strings.HasPrefix(sym, "mlx::")
}

// readSymbols reads what the outcome's objects define and leave undefined:
// the symbols none of them defines and that a trial link with the C++
// driver's libraries misses too. Sources are named relative to the tree.
func (b *driftBuild) readSymbols(ctx context.Context, out *buildOutcome, units []cmake.Unit) error {
	objs, err := objects(out.build)
	if err != nil {
		return fmt.Errorf("overlay apiDrift: listing the objects of %s: %w", out.build, err)
	}
	syms, err := readSymbols(ctx, objs)
	if err != nil {
		return err
	}
	a := attribution{tree: out.tree}
	sources := map[string]string{}
	for _, u := range units {
		obj := u.Output
		if !filepath.IsAbs(obj) {
			obj = filepath.Join(u.Dir, obj)
		}
		src, _ := a.rel(u.Source)
		sources[filepath.Clean(obj)] = src
	}
	source := func(obj string) string {
		if s, ok := sources[filepath.Clean(obj)]; ok {
			return s
		}
		return objectSource(obj)
	}
	for s, obj := range syms.defined {
		out.defined[s] = source(obj)
	}
	missing := syms.missing()
	misses, linked := linkMisses(ctx, out.dir, objs)
	out.linked = linked
	names := make([]string, 0, len(missing))
	for s := range missing {
		if !linked || misses[s] {
			names = append(names, s)
		}
	}
	slices.Sort(names)
	for _, s := range names {
		sym := Symbol{Name: s}
		for obj := range missing[s] {
			if src := source(obj); !slices.Contains(sym.From, src) {
				sym.From = append(sym.From, src)
			}
		}
		slices.Sort(sym.From)
		out.missing = append(out.missing, sym)
		out.missingSet[s] = true
	}
	return nil
}
