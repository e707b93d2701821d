package overlays

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openDirAt opens the directory root/rel for reading.
func openDirAt(root, rel string) (int, error) {
	for {
		fd, err := unix.Open(join(root, rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readDirFD lists the open directory fd through os.File, which owns and
// closes a duplicate of fd (the caller keeps fd, to stat the entries
// relative to it).
func readDirFD(fd int, out []dirEnt) ([]dirEnt, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), "")
	defer f.Close()
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		t := e.Type() & fs.ModeType
		switch {
		case t == 0, t == fs.ModeDir, t == fs.ModeSymlink:
		default:
			t = fs.ModeIrregular
		}
		out = append(out, dirEnt{name: e.Name(), typ: t})
	}
	return out, nil
}

// fstatDir is the identity of the open directory fd.
func fstatDir(fd int) (dirID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return dirID{}, err
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, nil
}
