package overlays

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// dirEnt is one name of a directory listing and its type as the listing
// reports it: fs.ModeDir, fs.ModeSymlink, 0 for a regular file, or
// fs.ModeIrregular for anything else.
type dirEnt struct {
	name string
	typ  fs.FileMode
}

func (d *dirEnt) isDir() bool { return d.typ == fs.ModeDir }

// listSide opens one side's directory root/rel (root alone when rel is "")
// and lists it sorted by name into into[:0] (a slice the caller reuses).
// When rec keeps this side's listing (see dirRecord), into holds it,
// decoded, and it is the listing while the directory still has the
// identity it had then; else the listing is read from the directory. id is
// the identity the directory had before it was read. A missing directory is empty, with fd
// -1. The caller closes fd (closeDir) and stats the entries with fstatat
// relative to it, which saves the kernel a walk of the whole path.
func listSide(what, root, rel string, side int, rec *dirRecord, into []dirEnt) (fd int, es []dirEnt, id dirID, fromRec bool, err error) {
	fd, err = openDirAt(root, rel)
	if errors.Is(err, unix.ENOENT) {
		return -1, into[:0], dirID{}, false, nil
	}
	if err == nil {
		if id, err = fstatDir(fd); err == nil {
			if rec != nil && rec.has[side] && rec.id[side] == id {
				return fd, into, id, true, nil
			}
			es, err = readDirFD(fd, into[:0])
		}
		if err != nil {
			closeDir(fd)
		}
	}
	if err != nil {
		return -1, nil, dirID{}, false, fmt.Errorf("overlays: reading %s directory %s: %w; check its permissions", what, join(root, rel), err)
	}
	slices.SortFunc(es, func(a, b dirEnt) int { return strings.Compare(a.name, b.name) })
	return fd, es, id, false, nil
}

func closeDir(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}

// modeType maps a stat mode to the types a dirEnt holds.
func modeType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// irregularType names, for an error, what kind of file name in dirfd is:
// "p---------" for a named pipe, as fs.FileMode prints it.
func irregularType(dirfd int, name string) string {
	var st unix.Stat_t
	if err := fstatat(dirfd, name, &st); err != nil {
		return "unknown type"
	}
	var t fs.FileMode
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO:
		t = fs.ModeNamedPipe
	case unix.S_IFSOCK:
		t = fs.ModeSocket
	case unix.S_IFCHR:
		t = fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		t = fs.ModeDevice
	default:
		t = modeType(uint32(st.Mode))
	}
	return t.String()
}
