package overlays

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// hipSourceExts are the sources the reference's ROCm fork compiles with one
// add_custom_command each, depending on the source file alone (no DEPFILE):
// Ninja sees no header behind them, so a header edit would recompile nothing
// and link stale objects. mlxbuild owns the tree, so it closes the gap: when a
// run changes files, every such source whose include closure reaches a
// changed file gets a fresh mtime in the tree, and Ninja reruns exactly its
// command. Where the build does track headers (CMake's HIP language with
// depfiles) the same sources would rebuild anyway, so nothing extra runs.
var hipSourceExts = []string{".hip"}

// includeRoots are where a quoted or angled include is looked for, after the
// including file's own directory: the tree's root, which is the
// -I${PROJECT_SOURCE_DIR} every MLX backend passes.
var includeRoots = []string{""}

// touchDependents gives every HIP source of the tree whose include closure
// reaches a path in changed (written, restored, removed or touched by this
// run) the current time as its mtime, records the new stat data in man, and
// returns the sources it touched, sorted. Sources in changed are left alone:
// Ninja already sees them.
func touchDependents(tree string, man *Manifest, changed []string) ([]string, error) {
	if len(changed) == 0 {
		return nil, nil
	}
	g := &includeGraph{tree: tree, man: man, changed: map[string]bool{}, yes: map[string]bool{}, includes: map[string][]string{}}
	for _, c := range changed {
		g.changed[c] = true
	}
	var touched []string
	now := time.Now()
	for i := range man.entries {
		e := &man.entries[i]
		if g.changed[e.path] || e.kind == kindLink || !slices.Contains(hipSourceExts, path.Ext(e.path)) {
			continue
		}
		hit, err := g.reaches(e.path)
		if err != nil {
			return nil, err
		}
		if !hit {
			continue
		}
		dst := join(tree, e.path)
		if err := os.Chtimes(dst, now, now); err != nil {
			return nil, fmt.Errorf("overlays: marking %s for a rebuild after a header it includes changed: %w; make the tree writable", dst, err)
		}
		fi, err := os.Lstat(dst)
		if err != nil {
			return nil, fmt.Errorf("overlays: reading %s: %w", dst, err)
		}
		st := statData(fi)
		e.mTime, e.cTime, e.ino, e.size = st.mtime, st.ctime, st.ino, st.size
		touched = append(touched, e.path)
	}
	return touched, nil
}

// includeGraph answers "does this file's include closure reach a changed
// path?", reading each tree file at most once. Only "yes" is remembered
// across sources: headers include each other in cycles (guards make that
// legal), and a "no" found while a cycle was being walked may be wrong.
type includeGraph struct {
	tree     string
	man      *Manifest
	changed  map[string]bool
	yes      map[string]bool
	includes map[string][]string
}

func (g *includeGraph) reaches(p string) (bool, error) {
	return g.walk(p, map[string]bool{})
}

func (g *includeGraph) walk(p string, seen map[string]bool) (bool, error) {
	if g.yes[p] {
		return true, nil
	}
	if seen[p] {
		return false, nil
	}
	seen[p] = true
	incs, err := g.includesOf(p)
	if err != nil {
		return false, err
	}
	for _, inc := range incs {
		hit := g.changed[inc]
		if !hit && g.man.find(inc) >= 0 {
			if hit, err = g.walk(inc, seen); err != nil {
				return false, err
			}
		}
		if hit {
			g.yes[p] = true
			return true, nil
		}
	}
	return false, nil
}

// includesOf lists the tree paths an #include in p may name: for each
// include, its resolution against p's directory and against every include
// root. Over-approximating is safe (a rebuild too many); missing one is not.
func (g *includeGraph) includesOf(p string) ([]string, error) {
	if incs, ok := g.includes[p]; ok {
		return incs, nil
	}
	data, err := os.ReadFile(join(g.tree, p))
	if err != nil {
		return nil, fmt.Errorf("overlays: reading %s for its includes: %w", join(g.tree, p), err)
	}
	var out []string
	for _, name := range includeNames(data) {
		for _, base := range append([]string{path.Dir(p)}, includeRoots...) {
			c := path.Clean(path.Join(base, name))
			if c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(name) {
				continue
			}
			out = append(out, c)
		}
	}
	g.includes[p] = out
	return out, nil
}

// includeNames returns the names of the #include directives of a C/C++/HIP
// source, quoted or angled, in order. Directives inside comments or disabled
// #if blocks are included too: that can only add a rebuild.
func includeNames(src []byte) []string {
	var out []string
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 || line[0] != '#' {
			continue
		}
		line = bytes.TrimLeft(line[1:], " \t")
		rest, ok := bytes.CutPrefix(line, []byte("include"))
		if !ok {
			continue
		}
		rest = bytes.TrimLeft(rest, " \t")
		if len(rest) < 2 {
			continue
		}
		closer := byte('"')
		switch rest[0] {
		case '"':
		case '<':
			closer = '>'
		default:
			continue
		}
		if j := bytes.IndexByte(rest[1:], closer); j > 0 {
			out = append(out, string(rest[1:1+j]))
		}
	}
	return out
}
