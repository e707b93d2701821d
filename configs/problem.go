package configs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Pos is a position in a YAML file, rendered the one way mlxbuild renders
// positions. Line and Col are 1-based; a zero Line means the value was not
// read from a file (a built-in default).
type Pos = fail.Pos

// Problem is one thing wrong with a spec or project file.
type Problem struct {
	Pos Pos
	Msg string
}

func (p Problem) String() string { return p.Pos.String() + ": " + p.Msg }

// ConfigError carries every problem found in one load, sorted by position,
// so a user fixes them all in one pass. It exits with status 2.
type ConfigError struct {
	Problems []Problem
}

// Kind is configuration: every problem is the user's to fix in the file.
func (e *ConfigError) Kind() fail.Kind { return fail.Config }

func (e *ConfigError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// problems collects Problems while a file is checked.
type problems struct{ list []Problem }

func (ps *problems) add(pos Pos, format string, args ...any) {
	ps.list = append(ps.list, Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// err returns nil when nothing was found, else a sorted *ConfigError.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	sortProblems(ps.list)
	return &ConfigError{Problems: ps.list}
}

func sortProblems(list []Problem) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i].Pos, list[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return list[i].Msg < list[j].Msg
	})
}
