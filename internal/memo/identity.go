package memo

import (
	"os"
	"strconv"
	"syscall"
)

// ID is one path's identity as stat reports it when it was looked at (path,
// type and mode, size, mtime, ctime, inode and device, and a symlink's
// target), or that it was absent. A result derived from files is reused
// across runs only while each file it was derived from keeps its identity:
// a rewrite changes mtime or size, an in-place edit that restores the mtime
// still changes ctime, and a file replaced by rename changes the inode.
type ID struct {
	Path   string
	Absent bool
	Link   string // the symlink's target, when Path is one
	Stat          // as lstat reports it: the link itself, not its target
}

// Of reads p's identity without following a final symlink (the link itself
// is what was looked at; a caller that follows it records the target too).
func Of(p string) ID {
	id := ID{Path: p}
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(p, &st)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			id.Absent = true
			return id
		}
	}
	id.Stat = fromSys(&st)
	if id.Mode&syscall.S_IFMT == syscall.S_IFLNK {
		id.Link, _ = os.Readlink(p)
	}
	return id
}

// Unchanged reports whether p still has the identity id.
func (id ID) Unchanged() bool { return Of(id.Path) == id }

// Key is the identity as one line of text, for a cache to compare with
// the line it stored: equal keys, equal identities.
func (id ID) Key() string {
	return string(id.appendKey(make([]byte, 0, len(id.Path)+96)))
}

// appendKey appends Key to b (a check of many keys compares them in one
// buffer rather than making a string of each).
func (id ID) appendKey(b []byte) []byte {
	b = strconv.AppendQuote(b, id.Path)
	if id.Absent {
		return append(b, " absent"...)
	}
	for _, n := range []int64{int64(id.Mode), id.Size, id.Mtime, id.Ctime} {
		b = append(b, ' ')
		b = strconv.AppendInt(b, n, 10)
	}
	for _, n := range []uint64{id.Ino, id.Dev} {
		b = append(b, ' ')
		b = strconv.AppendUint(b, n, 10)
	}
	if id.Link != "" {
		b = append(b, " -> "...)
		b = strconv.AppendQuote(b, id.Link)
	}
	return b
}
