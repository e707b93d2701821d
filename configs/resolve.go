package configs

import (
	"io/fs"
	"os"
	"path/filepath"
)

// resolver resolves the symlinks of paths, remembering the real path of
// every folder it met: the cache root check resolves a dozen paths that
// share most of their folders (the project's, its overlays', the cache's,
// the home directory), and filepath.EvalSymlinks looks at every component
// of each from the root again (68 lstats for the stand-in's project, and
// a fifth of the configuration's load). A resolver is for one check: a link
// changed meanwhile is seen as it was.
type resolver map[string]string // path -> its real path, "" where it cannot be resolved

// resolve gives path with the symlinks of its existing part resolved; the
// part that does not exist yet is kept as it is.
func (r resolver) resolve(path string) string {
	rest := ""
	for p := path; ; {
		if real, ok := r.real(p); ok {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// real is filepath.EvalSymlinks(p), from the real path of p's folder: the
// last component joined to it (a ".." then leaves the real folder, as the
// kernel does) and, where it is a link, resolved by EvalSymlinks.
func (r resolver) real(p string) (string, bool) {
	if v, ok := r[p]; ok {
		return v, v != ""
	}
	v := ""
	parent := filepath.Dir(p)
	switch {
	case parent == p: // the root, or "." for a relative path
		v = p
	case filepath.Clean(p) != p:
		// Not split by component (a trailing slash, a ".." that must
		// follow a link first): as EvalSymlinks does it.
		if s, err := filepath.EvalSymlinks(p); err == nil {
			v = s
		}
	default:
		dir, ok := r.real(parent)
		if !ok {
			break
		}
		q := filepath.Join(dir, filepath.Base(p))
		fi, err := os.Lstat(q)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if s, err := filepath.EvalSymlinks(q); err == nil {
				v = s
			}
		default:
			v = q
		}
	}
	r[p] = v
	return v, v != ""
}
