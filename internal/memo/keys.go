package memo

import (
	"path/filepath"
	"strconv"
	"syscall"
)

// KeyPath is the path a Key starts with; not ok for a line that does not
// start with an absolute path quoted as Key quotes it.
func KeyPath(key string) (string, bool) {
	q, err := strconv.QuotedPrefix(key)
	if err != nil {
		return "", false
	}
	p, err := strconv.Unquote(q)
	return p, err == nil && filepath.IsAbs(p)
}

// KeysUnchanged reports whether every file still has the identity its key
// records: what a cache of results derived from those files checks before
// reusing them. Keys in path order let it skip work: a directory comes
// before the files in it, and a path recorded absent directly inside a
// directory found unchanged (a real directory, not a link to one) is still
// absent, since creating an entry changes the directory's mtime and ctime,
// so it is not looked at again.
func KeysUnchanged(keys []string) bool {
	var dirs map[string]bool // directories found unchanged
	for _, k := range keys {
		p, ok := KeyPath(k)
		if !ok {
			return false
		}
		if k == strconv.Quote(p)+" absent" && dirs[filepath.Dir(p)] {
			continue
		}
		id := Of(p)
		if id.Key() != k {
			return false
		}
		if id.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			if dirs == nil {
				dirs = map[string]bool{}
			}
			dirs[p] = true
		}
	}
	return true
}
