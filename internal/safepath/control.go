// Package safepath holds the checks a path must pass before mlxbuild writes
// it into an output (cargo.txt, ldflags.txt, link.json, CMake's cache), and
// the one confinement every writer uses for a path that comes from outside
// (Join: no "..", not absolute, not through a symbolic link).
package safepath

import "fmt"

// ControlError says which control character a path holds and where.
type ControlError struct {
	Path   string
	Offset int  // byte offset of the character
	Char   byte // the character itself
}

func (e *ControlError) Error() string {
	return fmt.Sprintf("%q holds %s at byte %d; rename it so the path has no control characters", e.Path, name(e.Char), e.Offset)
}

// CheckControl refuses a path holding a control character (newline, CR,
// NUL, escape, DEL, ...). Outputs are line-based (a newline in a path would
// add a `cargo:` line of the path's choosing to cargo.txt) or end at a NUL
// (C strings), so such a path can only be refused, never quoted. A tab is
// allowed: it ends no line and no string, every writer quotes or escapes it
// (the manifest, JSON, CMAKE_<LANG>_FLAGS), and git and overlays carry file
// names with tabs (see forksync's drift over names git quotes).
func CheckControl(path string) error {
	for i := 0; i < len(path); i++ {
		if c := path[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return &ControlError{Path: path, Offset: i, Char: c}
		}
	}
	return nil
}

// CharName says which control character c is, as the errors of this
// package say it ("a newline", "a NUL byte", "the control character 0x1b").
func CharName(c byte) string { return name(c) }

func name(c byte) string {
	switch c {
	case '\n':
		return "a newline"
	case '\r':
		return "a carriage return"
	case 0:
		return "a NUL byte"
	}
	return fmt.Sprintf("the control character 0x%02x", c)
}
