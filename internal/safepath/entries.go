package safepath

import (
	"fmt"
	"path"
	"strings"
)

// Entry is one thing a listing (an archive's members) creates under its
// root: a file or directory, a symbolic link to Link, or a hard link to
// the entry Link.
type Entry struct {
	Path     string // slash-separated, as the listing names it
	Link     string // the link's target, for a symbolic or hard link
	Symlink  bool
	Hardlink bool
}

// CheckEntries checks a whole listing before anything of it is created,
// since a link made by one entry can carry a later entry's write outside
// the root: every path passes CheckRel; no entry lies below an entry that
// is a symbolic link; a symbolic link's target is relative and, walked
// from the link's directory, never climbs above the root nor passes through
// another link of the listing; a hard link's target is a path of the root
// (CheckRel) not through a link. The first refusal is returned.
func CheckEntries(entries []Entry) error {
	if bad := EntryProblems(entries, "archive"); len(bad) > 0 {
		return bad[0]
	}
	return nil
}

// EntryProblems is CheckEntries' every refusal (each an *UnsafeError), in
// the listing's order, so that a user fixes them all in one pass; what
// names the listing's root in them ("archive", "source").
func EntryProblems(entries []Entry, what string) []error {
	var bad []error
	links := map[string]bool{}
	ok := make([]bool, len(entries))
	for i, e := range entries {
		if err := CheckRel(e.Path); err != nil {
			bad = append(bad, err)
			continue
		}
		ok[i] = true
		if e.Symlink {
			links[clean(e.Path)] = true
		}
	}
	for i, e := range entries {
		if !ok[i] {
			continue
		}
		p := clean(e.Path)
		if l := linkPrefix(links, p, false); l != "" {
			bad = append(bad, &UnsafeError{e.Path, fmt.Sprintf("it lies below %s, a symbolic link of the same %s", l, what)})
			continue
		}
		switch {
		case e.Symlink:
			if err := checkLinkTarget(links, e, what); err != nil {
				bad = append(bad, err)
			}
		case e.Hardlink:
			if err := CheckRel(e.Link); err != nil {
				bad = append(bad, &UnsafeError{e.Path, fmt.Sprintf("it is a hard link to %q, outside the %s's root", e.Link, what)})
			} else if l := linkPrefix(links, clean(e.Link), true); l != "" {
				bad = append(bad, &UnsafeError{e.Path, fmt.Sprintf("it is a hard link through %s, a symbolic link of the same %s", l, what)})
			}
		}
	}
	return bad
}

// checkLinkTarget walks a symbolic link's target from its directory, one
// component at a time, as the kernel would.
func checkLinkTarget(links map[string]bool, e Entry, what string) error {
	t := e.Link
	switch {
	case t == "":
		return &UnsafeError{e.Path, "it is a symbolic link to nothing"}
	case strings.HasPrefix(t, "/"):
		return &UnsafeError{e.Path, fmt.Sprintf("it is a symbolic link to the absolute path %q", t)}
	}
	if err := CheckControl(t); err != nil {
		return &UnsafeError{e.Path, fmt.Sprintf("its link target %q holds a control character", t)}
	}
	stack := strings.Split(clean(path.Dir(clean(e.Path))), "/")
	if stack[0] == "." {
		stack = stack[:0]
	}
	for _, c := range strings.Split(t, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			if len(stack) == 0 {
				return &UnsafeError{e.Path, fmt.Sprintf("it is a symbolic link to %q, which leaves the %s's root", t, what)}
			}
			stack = stack[:len(stack)-1]
			continue
		}
		stack = append(stack, c)
		if p := strings.Join(stack, "/"); links[p] {
			return &UnsafeError{e.Path, fmt.Sprintf("it is a symbolic link to %q, through %s, another link of the same %s", t, p, what)}
		}
	}
	return nil
}

// linkPrefix is the first proper prefix of p that is a link (or p itself
// when self is set), else "".
func linkPrefix(links map[string]bool, p string, self bool) string {
	parts := strings.Split(p, "/")
	n := len(parts) - 1
	if self {
		n = len(parts)
	}
	for i := 1; i <= n; i++ {
		if q := strings.Join(parts[:i], "/"); links[q] {
			return q
		}
	}
	return ""
}

// clean is path.Clean of a path CheckRel accepted: it has no "..", so
// cleaning only drops "." and empty components and a trailing slash.
func clean(p string) string { return path.Clean(p) }
