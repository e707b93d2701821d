package overlays

import (
	"encoding/binary"
	"io/fs"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// direntBufs are getdents buffers, reused across directories: 32 KiB holds
// a few hundred entries, so most directories take one call and the empty
// one that ends the listing.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// readDirFD lists the open directory fd with getdents64. Each call's names
// are cut from one string made of the whole buffer, so a directory costs a
// string per call rather than one per entry.
func readDirFD(fd int, out []dirEnt) ([]dirEnt, error) {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
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
		s := string(buf[:n])
		// struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name NUL-terminated.
		for off := 0; off+19 <= n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 19 || off+reclen > n {
				return nil, unix.EIO // a record the kernel would never write
			}
			name := s[off+19 : off+reclen]
			for i := 0; i < len(name); i++ {
				if name[i] == 0 {
					name = name[:i]
					break
				}
			}
			typ := buf[off+18]
			off += reclen
			if name == "." || name == ".." || binary.NativeEndian.Uint64(buf[off-reclen:]) == 0 {
				continue // ino 0: a deleted entry some file systems still list
			}
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
