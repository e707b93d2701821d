package overlays

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// dirEnt is one name of a directory listing and its type as the listing
// reports it (see entType).
type dirEnt struct {
	name string
	typ  fs.FileMode
}

func (d *dirEnt) isDir() bool { return d.typ == fs.ModeDir }

// listDir opens the directory dir and lists it sorted by name; what names
// its side in an error. The caller stats the entries relative to the open
// directory (lstat) and closes it. A missing directory is empty, and not
// opened (nil).
func listDir(what, dir string) (*os.File, []dirEnt, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	var es []fs.DirEntry
	if err == nil {
		if es, err = f.ReadDir(-1); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("overlays: reading %s directory %s: %w; check its permissions", what, dir, bareErr(err))
	}
	out := make([]dirEnt, len(es))
	for i, e := range es {
		out[i] = dirEnt{name: e.Name(), typ: entType(e.Type())}
	}
	slices.SortFunc(out, func(a, b dirEnt) int { return strings.Compare(a.name, b.name) })
	return f, out, nil
}

// entType maps a file's type to the ones the walk tells apart: fs.ModeDir,
// fs.ModeSymlink, 0 for a regular file, or fs.ModeIrregular for anything
// else.
func entType(t fs.FileMode) fs.FileMode {
	switch t &= fs.ModeType; t {
	case 0, fs.ModeDir, fs.ModeSymlink:
		return t
	}
	return fs.ModeIrregular
}

// lstat is the stat data and type (see entType) of name in the open
// directory dir, not following a link. It is fstatat relative to the
// directory, with nothing allocated: os.Lstat of the whole path made a
// no-op of the real-shape tree 6-10 ms slower (docs/benchmarks.md, "Item
// 3"). Its error is the bare errno: the caller names the path.
func lstat(dir *os.File, name string) (statOf, fs.FileMode, error) {
	var st unix.Stat_t
	err := error(unix.EINTR)
	for err == unix.EINTR {
		err = unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return statOf{}, 0, err
	}
	s := statOf{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, dev: uint64(st.Dev), kind: kindFile}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Mode&0o111 != 0 {
			s.kind = kindExec
		}
		return s, 0, nil
	case unix.S_IFDIR:
		return s, fs.ModeDir, nil
	case unix.S_IFLNK:
		s.kind = kindLink
		return s, fs.ModeSymlink, nil
	}
	return s, fs.ModeIrregular, nil
}

// irregularType names, for an error, what kind of file path is:
// "p---------" for a named pipe, as fs.FileMode prints it.
func irregularType(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "unknown type"
	}
	return fi.Mode().Type().String()
}

// bareErr is err without the operation and path of an *fs.PathError, for a
// message that names the path itself.
func bareErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
