package configs

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a YAML file. Line and Col are 1-based; a zero Line
// means the value was not read from a file (a built-in default).
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

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

// ExitStatus is 2: bad configuration or usage (DESIGN.md).
func (e *ConfigError) ExitStatus() int { return 2 }

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

// usageError is a request that cannot be honoured (conflicting backends, a
// backend for another platform). It exits with status 2 like a bad file.
type usageError struct{ msg string }

func (e *usageError) Error() string   { return e.msg }
func (e *usageError) ExitStatus() int { return 2 }

// Usagef makes an error that exits with status 2.
func Usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}
