package memo

import (
	"io/fs"
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
	Path   string `json:"path"`
	Absent bool   `json:"absent,omitempty"`
	Link   string `json:"link,omitempty"` // the symlink's target, when Path is one
	Mode   uint32 `json:"mode,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Mtime  int64  `json:"mtime,omitempty"` // nanoseconds
	Ctime  int64  `json:"ctime,omitempty"` // nanoseconds: catches in-place edits that restore mtime
	Ino    uint64 `json:"ino,omitempty"`
	Dev    uint64 `json:"dev,omitempty"`
}

// Of reads p's identity without following a final symlink (the link itself
// is what was looked at; a caller that follows it records the target too).
func Of(p string) ID {
	id := ID{Path: p}
	st, err := os.Lstat(p)
	if err != nil {
		id.Absent = true
		return id
	}
	id.Mode = uint32(st.Mode())
	id.Size = st.Size()
	id.Mtime = st.ModTime().UnixNano()
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		id.Ino, id.Dev = uint64(sys.Ino), uint64(sys.Dev)
		id.Ctime = ctimeNanos(sys)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		id.Link, _ = os.Readlink(p)
	}
	return id
}

// Unchanged reports whether p still has the identity id.
func (id ID) Unchanged() bool { return Of(id.Path) == id }

// Key is the identity as one line of text, for a cache to compare with
// the line it stored: equal keys, equal identities.
func (id ID) Key() string {
	if id.Absent {
		return strconv.Quote(id.Path) + " absent"
	}
	b := make([]byte, 0, len(id.Path)+96)
	b = strconv.AppendQuote(b, id.Path)
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
	return string(b)
}
