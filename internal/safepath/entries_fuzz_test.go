package safepath

import (
	"strings"
	"testing"
)

// FuzzCheckEntries: a listing CheckEntries accepts, created entry by entry
// in its order on a model of a file system that follows links as the
// kernel does (".." after a link climbs from where the link led), never
// creates anything outside the root nor makes a hard link to something
// outside. A listing is lines of "f PATH", "l PATH\tTARGET" or
// "h PATH\tTARGET".
func FuzzCheckEntries(f *testing.F) {
	for _, s := range []string{
		"f top/a\nl top/l\ta\nh top/h\ttop/a",
		"l top/a\t..\nl top/b\ta/../..",
		"l top/l\tsub\nf top/l/x",
		"f top/l/x\nl top/l\t.",
		"l a\tb\nl b\ta\nf a/x",
		"l top/up\t../../x",
		"h top/h\t../x",
		"l d\t.\nl d2\td/d/d/..\nf d2/x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, listing string) {
		var entries []Entry
		for _, line := range strings.Split(listing, "\n") {
			if len(line) < 2 || line[1] != ' ' {
				continue
			}
			p, target, _ := strings.Cut(line[2:], "\t")
			switch line[0] {
			case 'f':
				entries = append(entries, Entry{Path: p})
			case 'l':
				entries = append(entries, Entry{Path: p, Symlink: true, Link: target})
			case 'h':
				entries = append(entries, Entry{Path: p, Hardlink: true, Link: target})
			}
		}
		if CheckEntries(entries) != nil {
			return
		}
		fs := modelFS{}
		for _, e := range entries {
			parts := strings.Split(e.Path, "/")
			dir, ok := fs.resolve(parts[:len(parts)-1], 0)
			if !ok {
				t.Fatalf("accepted %q, but %q reaches outside the root", listing, e.Path)
			}
			name := parts[len(parts)-1]
			if name == "" || name == "." {
				continue
			}
			at := strings.Join(append(dir, name), "/")
			switch {
			case e.Symlink:
				fs[at] = e.Link
			case e.Hardlink:
				if _, ok := fs.resolve(strings.Split(e.Link, "/"), 0); !ok {
					t.Fatalf("accepted %q, but the hard link %q reaches outside the root", listing, e.Path)
				}
			}
		}
		// Every link the listing made, followed, stays inside too.
		for at := range fs {
			if _, ok := fs.resolve(strings.Split(at, "/"), 0); !ok {
				t.Fatalf("accepted %q, but the link %s leads outside the root", listing, at)
			}
		}
	})
}

// modelFS maps the path of each symbolic link made to its target;
// everything else is a directory or a file.
type modelFS map[string]string

// resolve walks parts from the root, following every link, and returns
// the path reached, or false when it climbs above the root or loops.
func (fs modelFS) resolve(parts []string, depth int) ([]string, bool) {
	var stack []string
	for i := 0; i < len(parts); i++ {
		switch c := parts[i]; c {
		case "", ".":
		case "..":
			if len(stack) == 0 {
				return nil, false
			}
			stack = stack[:len(stack)-1]
		default:
			at := strings.Join(append(append([]string{}, stack...), c), "/")
			target, isLink := fs[at]
			if !isLink {
				stack = append(stack, c)
				continue
			}
			if depth > 40 || strings.HasPrefix(target, "/") {
				return nil, false
			}
			rest := append(strings.Split(target, "/"), parts[i+1:]...)
			dir, ok := fs.resolve(append(append([]string{}, stack...), rest...), depth+1)
			return dir, ok
		}
	}
	return stack, true
}
