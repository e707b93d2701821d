package flow

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// symbolTable is what a build's objects define and leave undefined.
type symbolTable struct {
	defined   map[string]string          // symbol -> an object that defines it
	undefined map[string]map[string]bool // symbol -> objects that reference it
}

// objects lists the object files under a build directory: the archives'
// members, found even when a failed compile kept an archive from being made.
func objects(build string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(build, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".o") {
			out = append(out, path)
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// readSymbols runs `nm --undefined-only -C` and `nm --defined-only -C` on
// the objects.
func readSymbols(ctx context.Context, objs []string) (*symbolTable, error) {
	t := &symbolTable{defined: map[string]string{}, undefined: map[string]map[string]bool{}}
	if len(objs) == 0 {
		return t, nil
	}
	for _, mode := range []string{"--undefined-only", "--defined-only"} {
		args := append([]string{mode, "-C", "--print-file-name"}, objs...)
		res, err := proc.Run(ctx, proc.Cmd{Path: "nm", Args: args})
		if err != nil {
			return nil, fmt.Errorf("forksync: nm %s on %d objects: %w; install binutils", mode, len(objs), err)
		}
		for _, line := range strings.Split(string(res.Stdout), "\n") {
			file, typ, sym, ok := parseNmLine(line)
			if !ok {
				continue
			}
			if mode == "--undefined-only" {
				if typ != "U" {
					continue // weak references (w, v) need no definition
				}
				if t.undefined[sym] == nil {
					t.undefined[sym] = map[string]bool{}
				}
				t.undefined[sym][file] = true
			} else {
				t.defined[sym] = file
			}
		}
	}
	return t, nil
}

// parseNmLine reads one line of `nm -C --print-file-name`:
// "path.o:                 U sym" or "path.o:0000000000000000 T sym". The
// symbol is everything after the type (a demangled name holds spaces).
func parseNmLine(line string) (file, typ, sym string, ok bool) {
	file, rest, ok := cutObj(line)
	if !ok {
		return "", "", "", false
	}
	rest = strings.TrimLeft(rest, " \t")
	word := func() string { // cuts rest's first word
		i := strings.IndexAny(rest, " \t")
		if i < 0 {
			w := rest
			rest = ""
			return w
		}
		w := rest[:i]
		rest = strings.TrimLeft(rest[i:], " \t")
		return w
	}
	first := word()
	switch {
	case len(first) == 1 && rest != "":
		typ = first // undefined: no address
	case len(first) > 1:
		// The address first: the type is the next word. (Taking the first
		// occurrence of the type letter instead found it inside addresses
		// for the hex-letter types a-f.)
		typ = word()
		if len(typ) != 1 || rest == "" {
			return "", "", "", false
		}
	default:
		return "", "", "", false
	}
	if sym = strings.TrimSpace(rest); sym == "" {
		return "", "", "", false
	}
	return file, typ, sym, true
}

// cutObj splits "path.o:0000 T sym" and "path.o:        U sym" at the
// object's name (a demangled symbol may hold ": " itself).
func cutObj(line string) (string, string, bool) {
	i := strings.Index(line, ".o:")
	if i < 0 {
		return "", "", false
	}
	return line[:i+2], line[i+3:], true
}

// missing is what the objects reference and none defines.
func (t *symbolTable) missing() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for s, refs := range t.undefined {
		if _, ok := t.defined[s]; !ok {
			out[s] = refs
		}
	}
	return out
}

var undefRefRE = lazyregexp.New("undefined reference to [`'](.*)'$")

// linkMisses links the objects into a throw-away program (with the C++
// driver's own libraries) and returns what the linker could not resolve,
// so symbols the system libraries give (libstdc++, libc, libm) drop out.
// ok is false when no link could be tried (no compiler).
func linkMisses(ctx context.Context, dir string, objs []string) (map[string]bool, bool) {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	main := filepath.Join(dir, "probe-main.cpp")
	if err := os.WriteFile(main, []byte("int main() { return 0; }\n"), 0o644); err != nil {
		return nil, false
	}
	args := append([]string{"-o", filepath.Join(dir, "probe"), main}, objs...)
	args = append(args, "-Wl,--unresolved-symbols=report-all")
	res, err := proc.Run(ctx, proc.Cmd{Path: cxx, Args: args})
	if err != nil && res.ExitCode < 0 {
		return nil, false
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(res.Stderr)+"\n"+string(res.Stdout), "\n") {
		if m := undefRefRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out[m[1]] = true
		}
	}
	return out, true
}
