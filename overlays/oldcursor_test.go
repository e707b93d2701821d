package overlays

import (
	"slices"
	"strings"
	"testing"
)

// TestOldCursorFindsEveryFileInWalkOrder walks a manifest the way
// Materialize does, directory by directory with names in listing order,
// over names whose order differs between plain byte order and the
// manifest's ("a" then "a-b", with "a/..." between): every file is found
// at its own index, each directory's cursor holds exactly the entries
// under it, and a name the manifest lacks is -1.
func TestOldCursorFindsEveryFileInWalkOrder(t *testing.T) {
	paths := []string{"a/a", "a/b/c", "a/b/d", "a-b", "a.txt", "ab", "b/x", "b/y/z", "c"}
	m := &Manifest{}
	for _, p := range paths {
		m.entries = append(m.entries, entry{path: p})
	}
	slices.SortFunc(m.entries, func(a, b entry) int { return comparePaths(a.path, b.path) })
	found := map[string]int{}
	var walk func(dir string, c oldCursor)
	walk = func(dir string, c oldCursor) {
		// The cursor covers exactly the entries under dir.
		for _, e := range c.es {
			if dir != "" && !strings.HasPrefix(e.path, dir+"/") {
				t.Errorf("the cursor of %q holds %q", dir, e.path)
			}
		}
		// The listing: direct children, sorted by name, plus names the
		// manifest does not know.
		names := map[string]bool{"zz-new": true, "0-new": true}
		for _, e := range c.es {
			names[strings.SplitN(e.path[c.prefix:], "/", 2)[0]] = false
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		slices.Sort(sorted)
		for _, n := range sorted {
			rel := joinRel(dir, n)
			isDir := slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, rel+"/") })
			if isDir {
				walk(rel, c.dir(n))
				continue
			}
			i := c.file(n)
			if names[n] { // not in the manifest
				if i != -1 {
					t.Errorf("%s: found at %d, but the manifest has no such file", rel, i)
				}
				continue
			}
			if i < 0 || m.entries[i].path != rel {
				t.Errorf("%s: found at %d", rel, i)
				continue
			}
			found[rel] = i
		}
	}
	walk("", oldCursor{es: m.entries})
	if len(found) != len(paths) {
		t.Errorf("found %d of %d files: %v", len(found), len(paths), found)
	}
}

// TestOldCursorFileBecameDirectory: an old entry "x" (a file) is no entry
// of the directory "x" that replaced it, and the parent passes it.
func TestOldCursorFileBecameDirectory(t *testing.T) {
	m := &Manifest{entries: []entry{{path: "w"}, {path: "x"}, {path: "y"}}}
	c := oldCursor{es: m.entries}
	if i := c.file("w"); i != 0 {
		t.Errorf("w at %d", i)
	}
	if sub := c.dir("x"); len(sub.es) != 0 {
		t.Errorf("the directory x got old entries %v", sub.es)
	}
	if i := c.file("y"); i != 2 {
		t.Errorf("y at %d, want 2", i)
	}
}
