package configs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

var (
	// cName is a preprocessor macro name (see identifier).
	cName = identifier
	// cxxStd is what -std= takes for C++: c++17, gnu++20, c++2b.
	cxxStd = lazyregexp.New(`^(c|gnu)\+\+[0-9][0-9a-z]$`)
	// includePlaceholders are what compile.include may use besides the
	// toolchain's.
	includePlaceholders = append([]string{"{tree}", "{build}"}, placeholders...)
)

// validateCompile checks the compile section: the link plan renders its
// values into a compiler line split on spaces and into Cargo metadata, so
// a value with white space would silently become two arguments.
func validateCompile(c *Compile, pos func(string) Pos, ps *problems) {
	if c.Std != "" && !cxxStd.MatchString(c.Std) {
		ps.add(pos("compile.std"), "compile.std %q is not a C++ standard as -std= takes it; write c++17 or gnu++20", c.Std)
	}
	for i, dir := range c.Include {
		path := fmt.Sprintf("compile.include[%d]", i)
		if strings.TrimSpace(dir) == "" || strings.ContainsAny(dir, " \t\n:") {
			ps.add(pos(path), "include directory %q must be one path without spaces or colons; use {tree} or {build} for the backend's directories", dir)
			continue
		}
		for _, m := range knownPlaceholder.FindAllString(dir, -1) {
			if !slices.Contains(includePlaceholders, m) {
				msg := fmt.Sprintf("unknown placeholder %s; known: %s", m, strings.Join(includePlaceholders, ", "))
				if sg := suggest(m, includePlaceholders); sg != "" {
					msg = fmt.Sprintf("unknown placeholder %s; did you mean %s?", m, sg)
				}
				ps.add(pos(path), "%s", msg)
			}
		}
	}
	seen := map[string]int{}
	for i, d := range c.Defines {
		path := fmt.Sprintf("compile.defines[%d]", i)
		if d.Name != "" && !cName.MatchString(d.Name) {
			ps.add(pos(path+".name"), "macro name %q is not a C identifier (letters, digits, underscores; not starting with a digit)", d.Name)
		}
		if strings.ContainsAny(d.Value, " \t\n\"'\\") {
			ps.add(pos(path+".value"), "macro value %q must not hold spaces, quotes or backslashes: the plan passes it as one -D argument", d.Value)
		}
		for j, o := range d.OS {
			oneOf(ps, pos(fmt.Sprintf("%s.os[%d]", path, j)), "platform", o, knownOS)
		}
		if j, dup := seen[compileDefKey(d)]; dup {
			ps.add(pos(path+".name"), "macro %s is defined twice (first in compile.defines[%d]); keep one", d.Name, j)
		} else {
			seen[compileDefKey(d)] = i
		}
	}
}

// compileDefKey makes macros that apply on different platforms distinct.
func compileDefKey(d CompileDefine) string { return d.Name + "\x00" + strings.Join(d.OS, ",") }

// ActiveCompileDefines are the compile defines that apply on goos.
func (s *Spec) ActiveCompileDefines(goos string) []CompileDefine {
	var out []CompileDefine
	for _, d := range s.Compile.Defines {
		if OnOS(d.OS, goos) {
			out = append(out, d)
		}
	}
	return out
}
