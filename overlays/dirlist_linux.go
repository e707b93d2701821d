package overlays

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// direntBufs are getdents buffers, reused across directories: 32 KiB holds
// a few hundred entries, so most directories take one call and the empty
// one that ends the listing.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// openDirAt opens the directory root/rel for reading. The NUL-terminated
// path is built in *buf, which the caller reuses: unix.Open of a joined
// path made two allocations per directory listed (the path, then its
// NUL-terminated copy), most of the allocations left in a no-op's walk.
func openDirAt(root, rel string, buf *[]byte) (int, error) {
	atFDCWD := unix.AT_FDCWD // a variable: the constant -100 does not convert to uintptr
	b := append((*buf)[:0], root...)
	if rel != "" {
		b = append(b, '/')
		b = append(b, rel...)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return -1, unix.EINVAL // as unix.Open says of such a path
	}
	b = append(b, 0)
	*buf = b
	for {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&b[0])), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0, 0, 0)
		switch e {
		case 0:
			return int(fd), nil
		case unix.EINTR:
			continue
		}
		return -1, e
	}
}

// getdents is unix.Getdents as a raw system call, as is fstatat: a no-op
// makes about 3,600 of the two on the real shape, each a microsecond or less
// on cached inodes, and unix.Syscall's entry to and exit from the scheduler
// (so that another goroutine may take the P while a call blocks) cost about
// 0.1 us each, 4-5% of a whole `overlay:apply` through the binary
// (docs/benchmarks.md). What that gives up: while a call waits for a disk
// (an inode not in the cache) its P waits too, so a cold walk overlaps at
// most GOMAXPROCS calls instead of one per worker, and a stop of the world
// waits for it. What the walk finds is the same either way.
func getdents(fd int, buf []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_GETDENTS64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// readDirFD lists the open directory fd with getdents64, keeping the names
// in names (no string per entry, nor per call).
func readDirFD(fd int, out []dirEnt, names *pathArena) ([]dirEnt, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		out = slices.Grow(out, n/32) // a record is 24 bytes and the name, padded to 8
		// struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name NUL-terminated.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return nil, unix.EIO // a record the kernel would never write
			}
			raw := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(raw, 0); i >= 0 {
				raw = raw[:i]
			}
			typ := buf[off+18]
			off += reclen
			if string(raw) == "." || string(raw) == ".." || binary.NativeEndian.Uint64(buf[off-reclen:]) == 0 {
				continue // ino 0: a deleted entry some file systems still list
			}
			name := names.string(raw)
			var t fs.FileMode
			switch typ {
			case unix.DT_REG:
				t = 0
			case unix.DT_DIR:
				t = fs.ModeDir
			case unix.DT_LNK:
				t = fs.ModeSymlink
			case unix.DT_UNKNOWN:
				if t, err = typeAt(fd, name); err != nil {
					if err == unix.ENOENT {
						continue // removed since the listing
					}
					return nil, err
				}
			default:
				t = fs.ModeIrregular
			}
			out = append(out, dirEnt{name: name, typ: t})
		}
	}
}

// fstatDir is the identity of the open directory fd, by a raw fstat (see
// getdents).
func fstatDir(fd int) (dirID, error) {
	var st unix.Stat_t
	for {
		_, _, e := unix.RawSyscall(unix.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(&st)), 0)
		switch e {
		case 0:
			return dirID{dev: uint64(st.Dev), ino: st.Ino, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, nil
		case unix.EINTR:
			continue
		}
		return dirID{}, e
	}
}
