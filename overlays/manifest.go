package overlays

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// Origin says where a tree file comes from.
type Origin uint8

// The origins of tree files.
const (
	FromPristine Origin = 'p'
	FromOverlay  Origin = 'o'
)

func (o Origin) String() string {
	switch o {
	case FromPristine:
		return "pristine"
	case FromOverlay:
		return "overlay"
	}
	return "unknown"
}

// Kind is the type of a tree entry: a regular file (executable or not) or a
// symbolic link copied from the pristine source.
type Kind uint8

// The kinds of tree entries.
const (
	KindFile Kind = 'f'
	KindExec Kind = 'x'
	KindLink Kind = 'l'
)

// Entry is one file of the tree as the last Materialize left it. The tree's
// size, mtime, ctime and inode, and the source's, let the next run trust Hash
// without reading either file; any difference makes it hash again. The ctime
// is what git's index also keeps: an edit in place that restores the size and
// mtime (an editor keeping times, cp -p, touch -r) cannot restore it.
type Entry struct {
	Path     string // slash-separated, relative to the tree
	Size     int64  // the tree file's size
	MTime    int64  // the tree file's mtime, ns since the epoch
	Ino      uint64 // the tree file's inode
	Hash     [32]byte
	Origin   Origin
	Kind     Kind
	SrcSize  int64  // the source file's size when it was last read
	SrcMTime int64  // the source file's mtime then
	SrcIno   uint64 // the source file's inode then
	CTime    int64  // the tree file's status change time, ns
	SrcCTime int64  // the source file's status change time then
}

// HashHex is the entry's content hash (SHA-256) in hex.
func (e *Entry) HashHex() string { return hex.EncodeToString(e.Hash[:]) }

// Manifest lists every file of a tree, sorted by path (see comparePaths).
type Manifest struct {
	Entries []Entry
	// mtime is the manifest file's own mtime when it was read: entries not
	// older than it are "racy" (a change in the same clock tick would not show
	// in their mtime), so the next run re-hashes them, as git does.
	mtime int64
}

// Hash fingerprints the tree's content: every path, kind and content hash,
// but not mtimes or origins, so that it changes exactly when what CMake
// would compile changes.
func (m *Manifest) Hash() string {
	h := sha256.New()
	var line []byte
	for i := range m.Entries {
		e := &m.Entries[i]
		line = append(line[:0], e.Path...)
		line = append(line, 0, byte(e.Kind), 0)
		line = append(line, e.Hash[:]...)
		line = append(line, '\n')
		h.Write(line)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// OverlayFiles is the manifest's overlay part (path -> content hash), the
// same map as the package function OverlayFiles but without reading files.
func (m *Manifest) OverlayFiles() map[string]string {
	out := map[string]string{}
	for i := range m.Entries {
		if m.Entries[i].Origin == FromOverlay {
			out[m.Entries[i].Path] = m.Entries[i].HashHex()
		}
	}
	return out
}

// find returns the index of path in the manifest, or -1.
func (m *Manifest) find(path string) int {
	i, ok := slices.BinarySearchFunc(m.Entries, path, func(e Entry, p string) int { return comparePaths(e.Path, p) })
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

// manifestHeader starts every manifest file; a file with another first line
// is ignored (the next run re-hashes everything and rewrites it).
const manifestHeader = "# mlxbuild tree manifest v3: path size mtime ino kind origin hash srcsize srcmtime srcino ctime srcctime"

// readManifest reads the manifest at path. A missing, unreadable or corrupt
// manifest gives an empty one: it is only a cache of hashes, and an empty one
// makes Materialize verify every file by content, which is always correct.
// It allocates nothing per line (paths are cut from shared blocks, see
// pathArena), since at 100k files the manifest is most of Materialize's
// memory and its reading most of a no-op's garbage.
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
	m.mtime = fi.ModTime().UnixNano()
	r := bufio.NewReaderSize(f, 64<<10)
	first, err := r.ReadSlice('\n')
	if err != nil || string(first) != manifestHeader+"\n" {
		return &Manifest{}
	}
	count, err := r.ReadSlice('\n')
	n, ok := parseUint(bytes.TrimPrefix(bytes.TrimSuffix(count, []byte("\n")), []byte("# entries ")))
	if err != nil || !ok || n > uint64(fi.Size()) {
		return &Manifest{}
	}
	m.Entries = make([]Entry, 0, n)
	var fields [12][]byte
	var paths pathArena
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil {
			return &Manifest{}
		}
		e, ok := parseEntry(line[:len(line)-1], fields[:], &paths)
		if !ok {
			return &Manifest{}
		}
		m.Entries = append(m.Entries, e)
	}
	if uint64(len(m.Entries)) != n || !slices.IsSortedFunc(m.Entries, func(a, b Entry) int { return comparePaths(a.Path, b.Path) }) {
		return &Manifest{}
	}
	return m
}

func parseEntry(line []byte, f [][]byte, paths *pathArena) (Entry, bool) {
	for i := range f {
		j := bytes.IndexByte(line, '\t')
		if i == len(f)-1 {
			if j >= 0 {
				return Entry{}, false
			}
			f[i] = line
			break
		}
		if j < 0 {
			return Entry{}, false
		}
		f[i], line = line[:j], line[j+1:]
	}
	var e Entry
	var ok [8]bool
	var u [8]uint64
	var neg [8]bool
	for k, i := range []int{1, 2, 3, 7, 8, 9, 10, 11} {
		if k == 1 || k == 4 || k == 6 || k == 7 { // times: a file may predate 1970
			if neg[k] = len(f[i]) > 1 && f[i][0] == '-'; neg[k] {
				f[i] = f[i][1:]
			}
		}
		u[k], ok[k] = parseUint(f[i])
		// Sizes and mtimes are int64: 19 digits can overflow them.
		if k != 2 && k != 5 && u[k] > math.MaxInt64 {
			ok[k] = false
		}
	}
	for _, x := range ok {
		if !x {
			return Entry{}, false
		}
	}
	e.Size, e.MTime, e.Ino, e.SrcSize, e.SrcMTime, e.SrcIno = int64(u[0]), int64(u[1]), u[2], int64(u[3]), int64(u[4]), u[5]
	if neg[1] {
		e.MTime = -e.MTime
	}
	if neg[4] {
		e.SrcMTime = -e.SrcMTime
	}
	e.CTime, e.SrcCTime = int64(u[6]), int64(u[7])
	if neg[6] {
		e.CTime = -e.CTime
	}
	if neg[7] {
		e.SrcCTime = -e.SrcCTime
	}
	if len(f[0]) == 0 || len(f[4]) != 1 || len(f[5]) != 1 || len(f[6]) != 64 {
		return Entry{}, false
	}
	if f[0][0] == '"' {
		e.Path = unquotePath(string(f[0]))
	} else {
		e.Path = paths.string(f[0])
	}
	e.Kind, e.Origin = Kind(f[4][0]), Origin(f[5][0])
	if _, x := hex.Decode(e.Hash[:], f[6]); x != nil {
		return Entry{}, false
	}
	return e, true
}

// pathArena hands out strings cut from shared 64 KiB blocks: one
// allocation per block instead of one per path. A strings.Builder only ever
// appends, and within its capacity never moves what it holds, so every
// string cut from its String() stays valid and unchanged.
type pathArena struct{ b strings.Builder }

func (a *pathArena) string(p []byte) string {
	if a.b.Cap()-a.b.Len() < len(p) {
		a.b = strings.Builder{}
		a.b.Grow(max(64<<10, len(p)))
	}
	start := a.b.Len()
	a.b.Write(p)
	return a.b.String()[start:]
}

// parseUint parses a decimal of at most 19 digits without allocating
// (strconv wants a string). Eight digits at a time (parseEight): most
// numbers of a manifest line are 19-digit nanosecond times, and a digit at
// a time was most of the cost of reading a manifest.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for len(b) >= 8 {
		v, ok := parseEight(binary.LittleEndian.Uint64(b))
		if !ok {
			return 0, false
		}
		n, b = n*100_000_000+v, b[8:]
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// parseEight is the value of eight ASCII digits loaded little-endian (the
// first digit in the low byte), or false if any byte is not a digit.
func parseEight(v uint64) (uint64, bool) {
	v -= 0x3030303030303030
	// A byte below '0' wrapped to 0xd0 or more, one above '9' reaches 0x80
	// or more once 0x76 is added; a digit stays at or under 0x7f.
	if (v|(v+0x7676767676767676))&0x8080808080808080 != 0 {
		return 0, false
	}
	// Pairs, then quads, then all eight: each step multiplies the higher
	// half by its weight and adds the lower (10 = 1 + 10*256 >> 8, and so on).
	v = (v * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	v = (v * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	return (v * (10000<<32 + 1)) >> 32 & 0xffffffff, true
}

// quotePath keeps one entry per line whatever bytes a file name holds.
func quotePath(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == '\\' || r == '"' || r == 0x7f }) {
		return strconv.Quote(p)
	}
	return p
}

func unquotePath(p string) string {
	if strings.HasPrefix(p, `"`) {
		if u, err := strconv.Unquote(p); err == nil {
			return u
		}
	}
	return p
}

// write replaces the manifest at path atomically: a temporary file in the
// same directory (named with tmpPrefix, which Materialize knows), synced,
// then renamed.
func (m *Manifest) write(path string) error {
	return atomicfile.Options{Perm: 0o644, What: "tree manifest", TempPattern: tmpPrefix + "manifest-*"}.WriteFunc(path, m.encode)
}

// encode writes the manifest in its text format to f.
func (m *Manifest) encode(f io.Writer) error {
	w := bufio.NewWriterSize(f, 64<<10)
	w.WriteString(manifestHeader)
	fmt.Fprintf(w, "\n# entries %d\n", len(m.Entries))
	var b []byte
	for i := range m.Entries {
		e := &m.Entries[i]
		b = append(b[:0], quotePath(e.Path)...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.MTime, 10)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.Ino, 10)
		b = append(b, '\t', byte(e.Kind), '\t', byte(e.Origin), '\t')
		b = hex.AppendEncode(b, e.Hash[:])
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.SrcSize, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.SrcMTime, 10)
		b = append(b, '\t')
		b = strconv.AppendUint(b, e.SrcIno, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.CTime, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.SrcCTime, 10)
		b = append(b, '\n')
		w.Write(b)
	}
	return w.Flush()
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
