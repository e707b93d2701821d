package safepath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// UnsafeError refuses a path that came from outside (a git tree, a diff, a
// record, a manifest, a spec, an archive member, a file name on the command
// line) and would be written outside its root. It is a configuration
// error: what holds the path must change, and nothing was written.
type UnsafeError struct {
	Entry string // the path as it came
	Why   string
}

func (e *UnsafeError) Error() string {
	return fmt.Sprintf("refusing unsafe path %q: %s", e.Entry, e.Why)
}

// Kind makes every UnsafeError a configuration error (exit 2).
func (e *UnsafeError) Kind() fail.Kind { return fail.Config }

// CheckRel refuses a slash-separated path from outside that could leave
// the root it is joined to, or that no writer can name safely: empty, absolute
// (a leading slash, or a volume or backslash that Windows reads as one), a
// ".." component, or a control character (a NUL ends it early in C, a
// newline splits the line-based records and outputs that list it). Empty
// and "." components are harmless and allowed ("a//b", "./a").
func CheckRel(rel string) error {
	if rel == "" {
		return &UnsafeError{rel, "it is empty"}
	}
	if err := CheckControl(rel); err != nil {
		var ce *ControlError
		errors.As(err, &ce)
		return &UnsafeError{rel, fmt.Sprintf("it holds %s at byte %d", name(ce.Char), ce.Offset)}
	}
	if rel[0] == '/' || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return &UnsafeError{rel, "it is absolute"}
	}
	// Component by component without allocating: a listing of a fork's
	// tree or an archive checks every one of its paths.
	for rest := rel; rest != ""; {
		c := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			c, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if c == ".." {
			return &UnsafeError{rel, "it has a .. component"}
		}
		// A backslash separates on Windows, so "..\\x" climbs there.
		if filepath.Separator != '/' && strings.IndexByte(c, filepath.Separator) >= 0 {
			return &UnsafeError{rel, "it holds a path separator of this system inside a component"}
		}
	}
	return nil
}

// Join checks rel (CheckRel) and that no directory on its way below root
// is a symbolic link (Lstat of each existing parent, so a link planted in
// the tree cannot carry a write elsewhere), and returns root joined with
// rel. root itself may be reached through links: it is the caller's.
// The final component may be a link only where the writer replaces it
// (a rename over it), never writes through it: callers that open the file
// check it themselves.
func Join(root, rel string) (string, error) {
	if err := CheckRel(rel); err != nil {
		return "", err
	}
	parts := strings.Split(rel, "/")
	cur := root
	for _, c := range parts[:len(parts)-1] {
		if c == "" || c == "." {
			continue
		}
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			break // nothing below exists yet, so no link either
		}
		if err != nil {
			return "", fmt.Errorf("checking %s under %s: %w", rel, root, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", &UnsafeError{rel, fmt.Sprintf("%s is a symbolic link", strings.TrimPrefix(cur, root+string(filepath.Separator)))}
		}
		if !fi.IsDir() {
			return "", &UnsafeError{rel, fmt.Sprintf("%s is not a directory", strings.TrimPrefix(cur, root+string(filepath.Separator)))}
		}
	}
	return filepath.Join(root, filepath.FromSlash(rel)), nil
}

// CheckAll checks every path of rels with CheckRel, so a writer refuses
// before it writes the first one; the first refusal is returned.
func CheckAll(rels []string) error {
	for _, r := range rels {
		if err := CheckRel(r); err != nil {
			return err
		}
	}
	return nil
}
