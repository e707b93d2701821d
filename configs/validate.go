package configs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/safepath"

	"github.com/hashicorp/go-version"
)

var (
	// identifier is a C identifier, the form of an environment variable's,
	// a CMake variable's and a preprocessor macro's name: one expression,
	// so a no-op compiles it once, not once per name it checks.
	identifier = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)
	envName    = identifier
	cmakeName  = identifier
	libName    = lazyregexp.New(`^[A-Za-z0-9_+][A-Za-z0-9_.+-]*$`)
)

var (
	knownOS          = []string{"linux", "darwin", "windows"}
	knownProbes      = []string{"kfd", "rocminfo", "nvidia-smi"}
	knownRpathModes  = []string{"runpath", "legacy"}
	knownPlaceholder = lazyregexp.New(`\{[^}]*\}`)
	placeholders     = []string{"{toolchain.root}", "{toolchain.bin}", "{toolchain.lib}"}
)

// oneOf reports s when it is not in list, with a suggestion.
func oneOf(ps *problems, pos Pos, what, s string, list []string) {
	if slices.Contains(list, s) {
		return
	}
	msg := fmt.Sprintf("unknown %s %q; expected one of %s", what, s, strings.Join(list, ", "))
	if sg := suggest(s, list); sg != "" {
		msg = fmt.Sprintf("unknown %s %q; did you mean %q?", what, s, sg)
	}
	ps.add(pos, "%s", msg)
}

// validateSpec checks what the schema alone cannot. at maps key paths to
// positions; fallback is used where a path has none (merged values).
func validateSpec(s *Spec, at map[string]Pos, fallback Pos, ps *problems) {
	pos := func(path string) Pos {
		if p, ok := at[path]; ok {
			return p
		}
		return fallback
	}
	if s.Backend != "" {
		oneOf(ps, pos("backend"), "backend", s.Backend, Names)
	}
	for i, p := range s.Platforms {
		oneOf(ps, pos(fmt.Sprintf("platforms[%d]", i)), "platform", p, knownOS)
	}
	for i, c := range s.Conflicts {
		path := fmt.Sprintf("conflicts[%d]", i)
		oneOf(ps, pos(path), "backend", c, Names)
		if c == s.Backend {
			ps.add(pos(path), "backend %q cannot conflict with itself", c)
		}
	}
	if t := s.Toolchain; t != nil {
		checkEnv(ps, pos("toolchain.env"), t.Env)
	}
	for tool, c := range s.Constraints {
		path := "constraints." + tool
		oneOf(ps, pos(path), "tool in constraints", tool, knownTools)
		if _, err := version.NewConstraint(c); err != nil {
			ps.add(pos(path), "bad version constraint %q for %s: write it like \">= 3.24\" or \">= 5.2, < 7\"", c, tool)
		}
	}
	seenDef := map[string]int{}
	for i, d := range s.Defines {
		path := fmt.Sprintf("defines[%d]", i)
		if d.Name != "" && !cmakeName.MatchString(d.Name) {
			ps.add(pos(path+".name"), "define name %q is not a CMake variable name (letters, digits, underscores)", d.Name)
		}
		checkValue(ps, pos(path+".value"), "define "+d.Name+"'s value", d.Value)
		for j, o := range d.OS {
			oneOf(ps, pos(fmt.Sprintf("%s.os[%d]", path, j)), "platform", o, knownOS)
		}
		if j, dup := seenDef[defKey(d)]; dup {
			ps.add(pos(path+".name"), "define %s is set twice (first in defines[%d]); keep one", d.Name, j)
		} else {
			seenDef[defKey(d)] = i
		}
	}
	if a := s.Architectures; a != nil {
		checkEnv(ps, pos("architectures.env"), a.Env)
		if a.RustcEnv != "" {
			checkEnv(ps, pos("architectures.rustc_env"), a.RustcEnv)
		}
		for i, p := range a.Probes {
			oneOf(ps, pos(fmt.Sprintf("architectures.probes[%d]", i)), "probe", p, knownProbes)
		}
		for i, c := range a.CMake {
			if !cmakeName.MatchString(c) {
				ps.add(pos(fmt.Sprintf("architectures.cmake[%d]", i)), "%q is not a CMake variable name", c)
			}
		}
	}
	validateLink(&s.Link, pos, ps)
	validateDependencies(s.Dependencies, pos, ps)
	validateCMakePackages(s.CMakePackages, pos, ps)
	if s.Rpath.Mode != "" {
		oneOf(ps, pos("rpath.mode"), "rpath mode", s.Rpath.Mode, knownRpathModes)
	}
	for i, d := range s.Rpath.Dirs {
		checkValue(ps, pos(fmt.Sprintf("rpath.dirs[%d]", i)), "run path", d)
	}
	validateCompile(&s.Compile, pos, ps)
	validateBundle(s.Bundle, pos, ps)
	for i, e := range s.Triggers.Env {
		checkEnv(ps, pos(fmt.Sprintf("triggers.env[%d]", i)), e)
	}
	for i, r := range s.Records {
		if r == "" || strings.Contains(r, "..") || strings.HasPrefix(r, "/") {
			ps.add(pos(fmt.Sprintf("records[%d]", i)), "records entry %q must be a relative file name inside the overlay", r)
		}
	}
	for i, c := range s.Verify {
		oneOf(ps, pos(fmt.Sprintf("verify[%d]", i)), "check", c, verifyCheckNames())
	}
	if s.Jobs.MemoryPerJobGiB < 0 {
		ps.add(pos("jobs.memory_per_job_gib"), "memory_per_job_gib must not be negative")
	}
}

// defKey makes defines that apply on different platforms distinct.
func defKey(d Define) string { return d.Name + "\x00" + strings.Join(d.OS, ",") }

func validateLink(l *link, pos func(string) Pos, ps *problems) {
	seen := map[string]string{}
	lists := []struct {
		key  string
		libs []Lib
	}{{"static", l.Static}, {"dynamic", l.Dynamic}, {"system", l.System}, {"frameworks", l.Frameworks}}
	for _, list := range lists {
		for i, lib := range list.libs {
			path := fmt.Sprintf("link.%s[%d]", list.key, i)
			if !libName.MatchString(lib.Name) || strings.HasPrefix(lib.Name, "-") {
				ps.add(pos(path+".name"), "library name %q: give the bare name (amdhip64, not -lamdhip64 or libamdhip64.so)", lib.Name)
			}
			if lib.Toolchain != "" {
				if _, err := version.NewConstraint(lib.Toolchain); err != nil {
					ps.add(pos(path+".toolchain"), "bad version constraint %q: write it like \">= 6.0\"", lib.Toolchain)
				}
			}
			for j, o := range lib.OS {
				oneOf(ps, pos(fmt.Sprintf("%s.os[%d]", path, j)), "platform", o, knownOS)
			}
			key := lib.Name + "\x00" + strings.Join(lib.OS, ",")
			if first, dup := seen[key]; dup {
				ps.add(pos(path+".name"), "duplicate library %q (also in %s); list each library once", lib.Name, first)
			} else {
				seen[key] = path
			}
		}
	}
	for i, d := range l.Search {
		checkValue(ps, pos(fmt.Sprintf("link.search[%d]", i)), "search directory", d)
	}
	for i, d := range l.Stubs {
		checkValue(ps, pos(fmt.Sprintf("link.stubs[%d]", i)), "stubs directory", d)
	}
}

func checkEnv(ps *problems, pos Pos, name string) {
	// An empty name is a missing required key, reported by the decoder.
	if name != "" && !envName.MatchString(name) {
		ps.add(pos, "%q is not a valid environment variable name (letters, digits, underscores; not starting with a digit)", name)
	}
}

// checkValue checks a value that reaches the build's outputs: its
// placeholders, and no control character. A run path or search directory
// lands in cargo.txt and ldflags.txt, which are line-based (a newline would
// add a `cargo:` line of the value's choosing), and a define's value in
// CMake's cache, one entry a line; so each is refused here, at its
// position, with every other problem of the file, before anything is
// written.
func checkValue(ps *problems, pos Pos, what, s string) {
	if err := safepath.CheckControl(s); err != nil {
		var ce *safepath.ControlError
		errors.As(err, &ce)
		ps.add(pos, "the %s %q holds %s at byte %d; write it on one line, without control characters", what, s, safepath.CharName(ce.Char), ce.Offset)
		return
	}
	checkPlaceholders(ps, pos, s)
}

func checkPlaceholders(ps *problems, pos Pos, s string) {
	for _, m := range knownPlaceholder.FindAllString(s, -1) {
		if !slices.Contains(placeholders, m) {
			msg := fmt.Sprintf("unknown placeholder %s; known: %s", m, strings.Join(placeholders, ", "))
			if sg := suggest(m, placeholders); sg != "" {
				msg = fmt.Sprintf("unknown placeholder %s; did you mean %s?", m, sg)
			}
			ps.add(pos, "%s", msg)
		}
	}
}
