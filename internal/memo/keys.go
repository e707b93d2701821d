package memo

import (
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// KeyPath is the path a Key starts with; not ok for a line that does not
// start with an absolute path quoted as Key quotes it.
func KeyPath(key string) (string, bool) {
	p, _, ok := keyPath(key)
	return p, ok
}

// keyPath is KeyPath, and the rest of key after the path when the path is
// quoted in strconv.Quote's own form (else tail is key itself).
func keyPath(key string) (p, tail string, ok bool) {
	if p, tail, ok := quoted(key); ok {
		return p, tail, filepath.IsAbs(p)
	}
	q, err := strconv.QuotedPrefix(key)
	if err != nil {
		return "", key, false
	}
	p, err = strconv.Unquote(q)
	return p, key, err == nil && filepath.IsAbs(p)
}

// KeysUnchanged reports whether every file still has the identity its key
// records: what a cache of results derived from those files checks before
// reusing them. Keys in path order let it skip work: a directory comes
// before the files in it, and a path recorded absent directly inside a
// directory found unchanged (a real directory, not a link to one) is still
// absent, since creating an entry changes the directory's mtime and ctime,
// so it is not looked at again. Each key is compared in one buffer, not
// made into a string: a kept check may hold a hundred.
func KeysUnchanged(keys []string) bool {
	var dirs map[string]bool  // directories found unchanged
	b := make([]byte, 0, 256) // one buffer for every key's line
	// Directories are kept only for absent keys to skip (a kept check of
	// folders has none, and a hundred of them).
	absents := slices.ContainsFunc(keys, func(k string) bool { return strings.HasSuffix(k, " absent") })
	for _, k := range keys {
		p, tail, ok := keyPath(k)
		if !ok {
			return false
		}
		if tail == " absent" && dirs[filepath.Dir(p)] {
			continue
		}
		id := Of(p)
		if b = id.appendKey(b[:0]); string(b) != k {
			return false
		}
		if id.Mode&syscall.S_IFMT == syscall.S_IFDIR && absents {
			if dirs == nil {
				dirs = map[string]bool{}
			}
			dirs[p] = true
		}
	}
	return true
}

// ParseKey is the identity a Key line names; not ok for a line Key would
// not have written. A check that compares identities field by field (the
// kept source.dir check's folders against the walk's) reads them back
// with it, so that the key's form is known here only.
func ParseKey(key string) (ID, bool) {
	p, tail, ok := quoted(key)
	if !ok || !filepath.IsAbs(p) {
		return ID{}, false
	}
	id := ID{Path: p, Absent: tail == " absent"}
	if !id.Absent {
		nums, link, isLink := strings.Cut(tail, " -> ")
		f := strings.Fields(nums)
		if len(f) != 6 {
			return ID{}, false
		}
		mode, err0 := strconv.ParseUint(f[0], 10, 32)
		size, err1 := strconv.ParseInt(f[1], 10, 64)
		mtime, err2 := strconv.ParseInt(f[2], 10, 64)
		ctime, err3 := strconv.ParseInt(f[3], 10, 64)
		ino, err4 := strconv.ParseUint(f[4], 10, 64)
		dev, err5 := strconv.ParseUint(f[5], 10, 64)
		if errors.Join(err0, err1, err2, err3, err4, err5) != nil {
			return ID{}, false
		}
		id.Stat = Stat{Mode: uint32(mode), Size: size, Mtime: mtime, Ctime: ctime, Ino: ino, Dev: dev}
		if isLink {
			id.Link, _, _ = quoted(link)
		}
	}
	// Any other spelling (spaces, signs, leading zeros, text after the
	// link) is refused by writing the identity back.
	return id, id.Key() == key
}
