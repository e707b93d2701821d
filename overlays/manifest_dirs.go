package overlays

import (
	"bufio"
	"encoding/binary"
	"io"
	"strings"
	"unsafe"
)

// The kept listings follow the entries: their number (u64), then per
// directory its rel's length (u16, 0 for the root) and bytes, a byte with
// bit s set for each side s that keeps its listing, for each such side its
// device, inode, mtime and ctime (u64 each), the number of names (u32), and
// per name its length (u16), its bytes and its type on each of the three
// sides (a typeByte, or 0 for none).

// maxDirName bounds a listed name: longer is a corrupt file (NAME_MAX is
// 255 bytes on Linux, 255 UTF-16 units on macOS).
const maxDirName = 1024

// encodeDirs writes the kept listings. A directory whose rel is too long
// for the form is left out: the next run lists it.
func encodeDirs(bw *bufio.Writer, dirs []dirRecord) {
	keep := 0
	for i := range dirs {
		if len(dirs[i].rel) <= maxManifestPath {
			keep++
		}
	}
	var b []byte
	b = binary.LittleEndian.AppendUint64(b, uint64(keep))
	for i := range dirs {
		d := &dirs[i]
		if len(d.rel) > maxManifestPath {
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(len(d.rel)))
		b = append(b, d.rel...)
		var mask byte
		for s := range sides {
			if d.has[s] {
				mask |= 1 << s
			}
		}
		b = append(b, mask)
		for s := range sides {
			if d.has[s] {
				for _, v := range [4]uint64{d.id[s].dev, d.id[s].ino, uint64(d.id[s].mtime), uint64(d.id[s].ctime)} {
					b = binary.LittleEndian.AppendUint64(b, v)
				}
			}
		}
		if d.ents == nil {
			// As read: the names go back as they came.
			b = binary.LittleEndian.AppendUint32(b, uint32(d.n))
			b = append(b, d.names...)
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(d.ents)))
			for _, e := range d.ents {
				b = binary.LittleEndian.AppendUint16(b, uint16(len(e.name)))
				b = append(b, e.name...)
				b = append(b, e.typ[:]...)
			}
		}
		bw.Write(b)
		b = b[:0]
	}
	bw.Write(b)
}

// readDirs reads the kept listings into m, refusing (false) a section that
// is cut short or has directories out of order or a record that keeps no
// side. The names are read as one block and checked when a walk takes them
// (dirRecord.decode): reading them one by one here was as long as the
// getdents calls they save, and on the no-op's critical path.
func readDirs(r *bufio.Reader, left int64, m *Manifest) bool {
	// Everything left is the section; a byte more is a corrupt file.
	if left < 8 {
		return false
	}
	buf := make([]byte, left+1)
	n, err := io.ReadFull(r, buf)
	if err != io.ErrUnexpectedEOF || n < 8 {
		return false
	}
	// The names are cut from one string: the buffer is never written
	// again, so this costs no copy.
	s := unsafe.String(unsafe.SliceData(buf), n)
	count := le64(s)
	s = s[8:]
	if count > uint64(len(s))/7 {
		return false
	}
	if count > 0 {
		m.dirs = make([]dirRecord, count)
	}
	for i := range m.dirs {
		d := &m.dirs[i]
		var ok bool
		if s, ok = readDir(s, d); !ok || i > 0 && comparePaths(m.dirs[i-1].rel, d.rel) >= 0 {
			return false
		}
	}
	return len(s) == 0
}

// readDir reads one record from the start of s and returns the rest.
func readDir(s string, d *dirRecord) (string, bool) {
	if len(s) < 2 {
		return s, false
	}
	n := int(s[0]) | int(s[1])<<8
	if n > maxManifestPath || len(s) < 2+n+1 {
		return s, false
	}
	d.rel = s[2 : 2+n]
	mask := s[2+n]
	s = s[2+n+1:]
	if mask == 0 || mask >= 1<<sides || !cleanRel(d.rel) {
		return s, false
	}
	for side := range sides {
		if mask&(1<<side) == 0 {
			continue
		}
		if len(s) < 32 {
			return s, false
		}
		d.has[side] = true
		d.id[side] = dirID{dev: le64(s), ino: le64(s[8:]), mtime: int64(le64(s[16:])), ctime: int64(le64(s[24:]))}
		s = s[32:]
	}
	if len(s) < 4 {
		return s, false
	}
	d.n = int(uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24)
	s = s[4:]
	// Only the lengths are followed here; decode checks the rest.
	end := 0
	for i := 0; i < d.n; i++ {
		if len(s)-end < 2 {
			return s, false
		}
		l := int(s[end]) | int(s[end+1])<<8
		end += 2 + l + sides
		if end > len(s) {
			return s, false
		}
	}
	d.names = s[:end]
	return s[end:], true
}

// le64 is the little-endian u64 at the start of s.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// isName reports whether b is a directory entry's name: not "." or "..",
// no '/' and no NUL. (A loop: strings.ContainsAny was a third of reading
// the listings.)
func isName(b string) bool {
	if b == "." || b == ".." {
		return false
	}
	for i := 0; i < len(b); i++ {
		if b[i] == '/' || b[i] == 0 {
			return false
		}
	}
	return true
}

// cleanRel reports whether rel is "" or a slash path of names with no
// empty, "." or ".." part: a directory the walk can visit.
func cleanRel(rel string) bool {
	if rel == "" {
		return true
	}
	for {
		part, rest, more := strings.Cut(rel, "/")
		if part == "" || part == "." || part == ".." || strings.IndexByte(part, 0) >= 0 {
			return false
		}
		if !more {
			return true
		}
		rel = rest
	}
}
