package overlays

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// origin says where a tree file comes from.
type origin uint8

// The origins of tree files.
const (
	fromPristine origin = 'p'
	FromOverlay  origin = 'o'
)

func (o origin) String() string {
	switch o {
	case fromPristine:
		return "pristine"
	case FromOverlay:
		return "overlay"
	}
	return "unknown"
}

// kind is the type of a tree entry: a regular file (executable or not) or a
// symbolic link copied from the pristine source.
type kind uint8

// The kinds of tree entries.
const (
	kindFile kind = 'f'
	kindExec kind = 'x'
	kindLink kind = 'l'
)

// entry is one file of the tree as the last Materialize left it. The tree's
// size, mtime, ctime and inode, and the source's, let the next run trust Hash
// without reading either file; any difference makes it hash again. The ctime
// is what git's index also keeps: an edit in place that restores the size and
// mtime (an editor keeping times, cp -p, touch -r) cannot restore it.
type entry struct {
	path     string // slash-separated, relative to the tree
	size     int64  // the tree file's size
	mTime    int64  // the tree file's mtime, ns since the epoch
	ino      uint64 // the tree file's inode
	hash     [32]byte
	origin   origin
	kind     kind
	srcSize  int64  // the source file's size when it was last read
	srcMTime int64  // the source file's mtime then
	srcIno   uint64 // the source file's inode then
	cTime    int64  // the tree file's status change time, ns
	srcCTime int64  // the source file's status change time then
}

// hashHex is the entry's content hash (SHA-256) in hex.
func (e *entry) hashHex() string { return hex.EncodeToString(e.hash[:]) }

// Manifest lists every file of a tree, sorted by path (see comparePaths).
type Manifest struct {
	entries []entry
	dirs    []dirRecord // kept listings (see dirRecord), sorted by rel (comparePaths)
	// mtime is the manifest file's own mtime when it was read: entries not
	// older than it are "racy" (a change in the same clock tick would not show
	// in their mtime), so the next run re-hashes them, as git does.
	mtime int64
	clock racyClock // the file's ctime when it was read (see lockClock)
}

// Fingerprint is the tree's content identity: SHA-256 over every path
// (relative to the tree), kind and content hash, in path order, but not
// mtimes, inodes, origins or where the tree lies. So it changes exactly
// when what CMake would compile changes, and is the same for the same
// pin and overlay on any machine and under any cache folder: a program
// scopes a JIT cache by it (link.json's tree_fingerprint).
func (m *Manifest) Fingerprint() string {
	h := sha256.New()
	var line []byte
	for i := range m.entries {
		e := &m.entries[i]
		line = append(line[:0], e.path...)
		line = append(line, 0, byte(e.kind), 0)
		line = append(line, e.hash[:]...)
		line = append(line, '\n')
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OverlayFiles is the manifest's overlay part (path -> content hash), the
// same map as the package function OverlayFiles but without reading files.
func (m *Manifest) OverlayFiles() map[string]string {
	out := map[string]string{}
	for i := range m.entries {
		if m.entries[i].origin == FromOverlay {
			out[m.entries[i].path] = m.entries[i].hashHex()
		}
	}
	return out
}

// find returns the index of path in the manifest, or -1.
func (m *Manifest) find(path string) int {
	i, ok := slices.BinarySearchFunc(m.entries, path, func(e entry, p string) int { return comparePaths(e.path, p) })
	if !ok {
		return -1
	}
	return i
}

// comparePaths orders slash-separated paths component by component, which is
// the order a sorted directory walk visits them ("a/b" before "a.txt"): '/'
// sorts before every other byte.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// manifestHeader starts every manifest file, as a text line so that a look
// at the file says what it is; a file with another first line is ignored
// (the next run re-hashes everything and rewrites it). Then comes the
// number of entries (u64), then each entry: its path's length (u16) and
// bytes, then entryFixed bytes of fixed fields, then the kept listings (see
// encodeDirs), all little-endian. A binary form, because reading the text
// form (v3) was a tenth of a no-op's CPU at 10k files, mostly spent turning
// decimals back into numbers.
const manifestHeader = "# mlxbuild tree manifest v5 (binary): count, then per entry pathlen path kind origin size mtime ino ctime srcsize srcmtime srcino srcctime hash; then the kept listings\n"

// manifestHeaderV4 is the form before kept listings: its entries are read
// (the next run that changes anything writes v5), so that an upgrade does
// not re-hash every file of the tree.
const manifestHeaderV4 = "# mlxbuild tree manifest v4 (binary): count, then per entry pathlen path kind origin size mtime ino ctime srcsize srcmtime srcino srcctime hash\n"

// entryFixed is the size of an entry's fields after its path: kind and
// origin, eight 64-bit numbers, the hash.
const entryFixed = 2 + 8*8 + 32

// maxManifestPath bounds a path's length: longer is a corrupt file (Linux
// allows 4096 bytes, macOS 1024), and it keeps every read inside the
// reader's buffer.
const maxManifestPath = 16 << 10

// readManifest reads the manifest at path. A missing, unreadable or corrupt
// manifest gives an empty one: it is only a cache of hashes, and an empty one
// makes Materialize verify every file by content, which is always correct.
func readManifest(path string) *Manifest {
	m := &Manifest{}
	f, err := os.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return m
	}
	m.mtime, m.clock = fi.ModTime().UnixNano(), clockOf(fi)
	r := bufio.NewReaderSize(f, 64<<10)
	v5 := true
	head, err := r.Peek(len(manifestHeader) + 8)
	if err != nil || string(head[:len(manifestHeader)]) != manifestHeader {
		if head, err = r.Peek(len(manifestHeaderV4) + 8); err != nil || string(head[:len(manifestHeaderV4)]) != manifestHeaderV4 {
			return &Manifest{}
		}
		v5 = false
	}
	n := binary.LittleEndian.Uint64(head[len(head)-8:])
	r.Discard(len(head))
	if n > uint64(fi.Size())/(2+entryFixed) {
		return &Manifest{}
	}
	m.entries = make([]entry, n)
	for i := range m.entries {
		e := &m.entries[i]
		// In order, each path after the last (comparePaths), or the file
		// is not one this package wrote.
		if !readEntry(r, e) || i > 0 && comparePaths(m.entries[i-1].path, e.path) >= 0 {
			return &Manifest{}
		}
	}
	if v5 && !readDirs(r, unread(f, r, fi.Size()), m) {
		return &Manifest{}
	}
	if _, err := r.Peek(1); err != io.EOF {
		return &Manifest{}
	}
	return m
}

// unread is how much of f, of size bytes, r has not returned yet.
func unread(f *os.File, r *bufio.Reader, size int64) int64 {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1
	}
	return size - pos + int64(r.Buffered())
}

// readEntry reads one entry into e (a zero entry); false for a truncated
// or impossible one.
func readEntry(r *bufio.Reader, e *entry) bool {
	b, err := r.Peek(2)
	if err != nil {
		return false
	}
	n := int(binary.LittleEndian.Uint16(b))
	if n == 0 || n > maxManifestPath {
		return false
	}
	r.Discard(2)
	if b, err = r.Peek(n); err != nil {
		return false
	}
	e.path = string(b)
	r.Discard(n)
	if b, err = r.Peek(entryFixed); err != nil {
		return false
	}
	e.kind, e.origin = kind(b[0]), origin(b[1])
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[2+8*i:]) }
	e.size, e.mTime, e.ino, e.cTime = int64(u(0)), int64(u(1)), u(2), int64(u(3))
	e.srcSize, e.srcMTime, e.srcIno, e.srcCTime = int64(u(4)), int64(u(5)), u(6), int64(u(7))
	copy(e.hash[:], b[2+8*8:])
	r.Discard(entryFixed)
	return e.size >= 0 && e.srcSize >= 0
}

// write replaces the manifest at path atomically: a temporary file in the
// same directory (named with tmpPrefix, which Materialize knows), synced,
// then renamed.
func (m *Manifest) write(path string) error {
	return atomicfile.Options{Perm: 0o644, What: "tree manifest", TempPattern: tmpPrefix + "manifest-*"}.WriteFunc(path, m.encode)
}

// encode writes the manifest in its binary form (see manifestHeader) to w.
// A path too long for it is left out: the next run reads that file by
// content, as it would with no manifest.
func (m *Manifest) encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	keep := 0
	for i := range m.entries {
		if p := len(m.entries[i].path); p > 0 && p <= maxManifestPath {
			keep++
		}
	}
	b := binary.LittleEndian.AppendUint64([]byte(manifestHeader), uint64(keep))
	for i := range m.entries {
		e := &m.entries[i]
		if len(e.path) == 0 || len(e.path) > maxManifestPath {
			continue
		}
		b = binary.LittleEndian.AppendUint16(b, uint16(len(e.path)))
		b = append(b, e.path...)
		b = append(b, byte(e.kind), byte(e.origin))
		for _, v := range [8]uint64{uint64(e.size), uint64(e.mTime), e.ino, uint64(e.cTime), uint64(e.srcSize), uint64(e.srcMTime), e.srcIno, uint64(e.srcCTime)} {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		b = append(b, e.hash[:]...)
		bw.Write(b)
		b = b[:0]
	}
	bw.Write(b)
	encodeDirs(bw, m.dirs)
	return bw.Flush()
}

func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		if i == 0 {
			return "/"
		}
		return path[:i]
	}
	return "."
}
