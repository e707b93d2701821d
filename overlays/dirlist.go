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

// listSide opens one side's directory root/rel (root alone when rel is "")
// and lists it sorted by name into into[:0] (a slice the caller reuses).
// When rec keeps this side's listing (see dirRecord), into holds it,
// decoded, and it is the listing while the directory still has the
// identity it had then; else the listing is read from the directory. id is
// the identity the directory had before it was read. A missing directory
// is empty, and not opened (noDir). The caller closes the directory and
// stats the entries relative to it (lstat).
func listSide(what, root, rel string, side int, rec *dirRecord, into []dirEnt) (dir dirFD, es []dirEnt, id dirID, fromRec bool, err error) {
	path := join(root, rel)
	dir, err = openDir(path)
	if errors.Is(err, fs.ErrNotExist) {
		return noDir, into[:0], dirID{}, false, nil
	}
	if err == nil {
		if id, err = dirIdentity(dir, path); err == nil {
			if rec != nil && rec.has[side] && rec.id[side] == id {
				return dir, into, id, true, nil
			}
			es, err = dir.readEntries(path, into[:0])
		}
		if err != nil {
			dir.Close()
		}
	}
	if err != nil {
		return noDir, nil, dirID{}, false, fmt.Errorf("overlays: reading %s directory %s: %w; check its permissions", what, path, bareErr(err))
	}
	slices.SortFunc(es, func(a, b dirEnt) int { return strings.Compare(a.name, b.name) })
	return dir, es, id, false, nil
}

// dirFD is one open directory of the walk, held by its descriptor alone
// (noDir: none). Its listing is read through an *os.File of a duplicate
// made only then (readEntries): os.NewFile asks for the descriptor's flags
// and allocates, and a no-op keeps nearly every listing (docs/benchmarks.md,
// "round three").
type dirFD int

const noDir dirFD = -1

func (d dirFD) opened() bool { return d >= 0 }

// Close closes the directory.
func (d dirFD) Close() error { return unix.Close(int(d)) }

// openDir opens the directory path for reading, and fails on anything
// else (O_DIRECTORY: a named pipe there is refused, not waited on). It is
// opened blocking and left out of the runtime's poller, which os.OpenFile
// offers every directory to (an epoll_ctl that fails, a poll descriptor
// made and freed: docs/benchmarks.md, "The no-op against 14a2888, round
// two"). O_CLOEXEC: no child inherits it.
func openDir(path string) (dirFD, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return noDir, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return dirFD(fd), nil
	}
}

// readEntries appends the entries of the directory d, at path, to out,
// unsorted. They are read through a duplicate of its descriptor, so that
// d alone still owns d.
func (d dirFD) readEntries(path string, out []dirEnt) ([]dirEnt, error) {
	dup, err := unix.FcntlInt(uintptr(d), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), path)
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		out = append(out, dirEnt{name: e.Name(), typ: entType(e.Type())})
	}
	return out, nil
}

// dirIdentity is the identity of the open directory dir, at path. It is
// fstat on the descriptor, which allocates nothing (os.File's Stat makes a
// FileInfo per directory); the fields are those Stat's would give, so
// identities kept by earlier runs still match.
func dirIdentity(dir dirFD, path string) (dirID, error) {
	var st unix.Stat_t
	err := error(unix.EINTR)
	for err == unix.EINTR {
		err = unix.Fstat(int(dir), &st)
	}
	if err != nil {
		return dirID{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, nil
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
// directory, which allocates nothing (on Linux) and spares the kernel a
// walk of the whole path; os.Lstat does both for every file
// (docs/benchmarks.md, "Item 3: the sub-0.3 ms code deleted"). Its error is
// the bare errno: the caller names the path.
func lstat(dir dirFD, name string) (statOf, fs.FileMode, error) {
	var st unix.Stat_t
	if err := fstatat(int(dir), name, &st); err != nil {
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
