package configs

import (
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// parseWholeSpec strictly decodes and validates a complete spec. file names it
// in messages.
func parseWholeSpec(file string, data []byte) (*Spec, error) { return parseSpec(file, data, false) }

// parseOverride decodes a partial spec that extends another: required keys
// may be left out.
func parseOverride(file string, data []byte) (*Spec, error) { return parseSpec(file, data, true) }

func parseSpec(file string, data []byte, partial bool) (*Spec, error) {
	var ps problems
	s := &Spec{}
	at := decodeFile(file, data, s, &ps, partial)
	validateSpec(s, at, Pos{File: file, Line: 1, Col: 1}, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	s.Source = file
	stampOrigins(s, file)
	return s, nil
}

// stampOrigins records where each define and library was declared, for
// plan output.
func stampOrigins(s *Spec, file string) {
	for i := range s.Defines {
		s.Defines[i].Origin = s.Defines[i].Pos.String()
	}
	for i := range s.Dependencies {
		s.Dependencies[i].Origin = s.Dependencies[i].Pos.String()
		s.Dependencies[i].Base = filepath.Dir(file)
	}
	for i := range s.CMakePackages {
		s.CMakePackages[i].Origin = s.CMakePackages[i].Pos.String()
	}
	for i := range s.Compile.Defines {
		s.Compile.Defines[i].Origin = s.Compile.Defines[i].Pos.String()
	}
	for _, list := range [][]Lib{s.Link.Static, s.Link.Dynamic, s.Link.System, s.Link.Frameworks} {
		for i := range list {
			list[i].Origin = list[i].Pos.String()
		}
	}
}

// UnknownBackend is the usage error for a backend name mlxbuild does not build, with a suggestion.
func UnknownBackend(name string) error {
	if s := suggest(name, Names); s != "" {
		return fail.Configf("unknown backend %q; did you mean %q? Request one of %s", name, s, strings.Join(Names, ", "))
	}
	return fail.Configf("unknown backend %q: mlxbuild builds %s; request one of those", name, namesJoined("and"))
}
