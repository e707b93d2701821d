package overlays

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// statOf is the part of a file's stat data the manifest keeps.
type statOf struct {
	size, mtime, ctime int64
	ino, dev           uint64
	kind               kind
}

func statData(fi fs.FileInfo) statOf {
	s := statOf{size: fi.Size(), mtime: fi.ModTime().UnixNano(), kind: kindFile}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.ino, s.ctime = st.Ino, ctimeOf(st)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		s.kind = kindLink
	case fi.Mode()&0o111 != 0:
		s.kind = kindExec
	}
	return s
}

// racy reports whether a recorded mtime is too recent to trust: a change in
// the same clock tick as the manifest's writing would not have moved it.
func (m *materializer) racy(mtime int64) bool { return mtime >= m.old.mtime }

// keptCTime is the ctime the manifest keeps for a file this run read: 0,
// which no file has, so that the next run reads it again, when the file
// changed at or after the lock was taken. An edit of the same size in the
// clock tick after this run's read would then move none of its times, and
// racy's rule misses it when the manifest is written in a later tick. Its
// ctime older than the lock file's, any later change moves it (the rule of
// the kept listings, see memo.Clock.Older). Without a lock file it is kept as it
// is: the old manifest's ctime, the clock then, is in the clock tick of the
// last run's own writes, which would all be read again.
func (m *materializer) keptCTime(s statOf) int64 {
	if m.clock.lock && !m.clock.Older(s.dev, s.ctime) {
		return 0
	}
	return s.ctime
}

// file makes the tree file dirRel/name equal to its source in srcRoot
// (origin says which side), writing it only when its content or kind
// differs. An unchanged file costs two fstatat calls and no allocation.
func (m *materializer) file(dirRel, name string, origin origin, srcRoot string, srcDir dirFD, t *dirEnt, treeDir dirFD, c *dirCounts) error {
	s, styp, err := lstat(srcDir, name)
	if err != nil {
		return fmt.Errorf("overlays: reading %s source %s: %w; check its permissions", origin, join(srcRoot, joinRel(dirRel, name)), err)
	}
	if s.kind == kindLink && origin == FromOverlay {
		return fmt.Errorf("overlays: overlay entry %s is a symbolic link; an overlay holds whole files: replace the link with the file it points to", join(srcRoot, joinRel(dirRel, name)))
	}
	if styp != 0 && s.kind != kindLink {
		return fmt.Errorf("overlays: %s entry %s is not a regular file; remove it", origin, join(srcRoot, joinRel(dirRel, name)))
	}
	idx := c.old.file(name)
	var old *entry
	if idx >= 0 {
		old = &m.old.entries[idx]
		m.seen[idx] = true
	}
	var tr statOf
	haveTree := false
	if t != nil && !t.isDir() {
		if st, typ, err := lstat(treeDir, name); err == nil && (typ == 0 || typ == fs.ModeSymlink) {
			tr, haveTree = st, true
		}
	}
	srcKnown := old != nil && old.origin == origin && old.kind == s.kind &&
		old.srcSize == s.size && old.srcMTime == s.mtime && old.srcCTime == s.ctime && old.srcIno == s.ino && !m.racy(s.mtime)
	treeKnown := old != nil && haveTree && old.kind == tr.kind &&
		old.size == tr.size && old.mTime == tr.mtime && old.cTime == tr.ctime && old.ino == tr.ino && !m.racy(tr.mtime)
	if srcKnown && treeKnown {
		c.unchanged++
		return nil
	}
	rel := joinRel(dirRel, name)
	src, dst := join(srcRoot, rel), join(m.tree, rel)
	b := m.getBufs()
	defer m.bufs.Put(b)
	var data []byte
	var sum [32]byte
	if srcKnown {
		sum = old.hash
	} else if data, sum, err = b.read(src, s.kind, &b.src); err != nil {
		return fmt.Errorf("overlays: reading %s source %s: %w; check its permissions", origin, src, err)
	}
	if haveTree && tr.kind == s.kind {
		tsum := old.hashOr()
		if !treeKnown {
			if _, tsum, err = b.read(dst, tr.kind, &b.tree); err != nil {
				return fmt.Errorf("overlays: reading tree file %s: %w; make it readable or remove it", dst, err)
			}
		}
		if tsum == sum {
			mtime := tr.mtime
			if old != nil && old.srcMTime != s.mtime && s.mtime > tr.mtime && s.kind != kindLink {
				// The source was touched, its content unchanged: pass the
				// touch on so Ninja rebuilds what depends on the file.
				ts := time.Unix(0, s.mtime)
				if err := m.beforeWrite(); err != nil {
					return err
				}
				if err := os.Chtimes(dst, ts, ts); err != nil {
					return fmt.Errorf("overlays: passing a touch of %s on to %s: %w; make the tree writable", src, dst, err)
				}
				mtime = s.mtime
				// Chtimes moved the tree file's ctime: record the new one, or
				// the next run would take the tree copy for a hand edit.
				if st, _, err := lstat(treeDir, name); err == nil {
					tr.ctime = st.ctime
				}
				c.touched++
				c.changed = append(c.changed, rel)
				c.touchedFiles = append(c.touchedFiles, rel)
			} else {
				c.unchanged++
				tr.ctime = m.keptCTime(tr) // read, not written, by this run
				if old != nil && (m.racy(s.mtime) || m.racy(tr.mtime)) {
					// Verified by content because its times were too
					// recent to trust: rewrite the manifest (as git
					// rewrites its index), so that its newer mtime lets
					// the next run trust them instead of reading them again
					// on every no-op.
					m.dirty.Store(true)
				}
			}
			m.record(idx, entry{path: rel, size: tr.size, mTime: mtime, cTime: tr.ctime, ino: tr.ino, hash: sum, origin: origin, kind: s.kind,
				srcSize: s.size, srcMTime: s.mtime, srcCTime: m.keptCTime(s), srcIno: s.ino}, c)
			return nil
		}
	}
	if data == nil {
		// The source was trusted from the manifest but the tree differs: read
		// the source now, and trust what was read.
		if data, sum, err = b.read(src, s.kind, &b.src); err != nil {
			return fmt.Errorf("overlays: reading %s source %s: %w; check its permissions", origin, src, err)
		}
	}
	if err := m.beforeWrite(); err != nil {
		return err
	}
	if t != nil && t.isDir() {
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("overlays: removing directory %s where a file belongs: %w; make %s writable", dst, err, m.tree)
		}
	}
	// The source is as the last run left it: by its stat data, or, where
	// the last run kept no ctime for it (keptCTime), by the rest of its stat
	// data and its content, read again here.
	srcSame := srcKnown || old != nil && old.srcCTime == 0 && old.origin == origin && old.kind == s.kind &&
		old.srcSize == s.size && old.srcMTime == s.mtime && old.srcIno == s.ino && old.hash == sum
	if srcSame && haveTree && !treeKnown && tr.kind == s.kind {
		// The tree copy is not as the last run left it: someone edited
		// the tree, and this run undoes it.
		c.handEdited = append(c.handEdited, rel)
	}
	if s.kind == kindLink {
		// As in entry: Pristine checked the source's links already.
		if bad := safepath.EntryProblems([]safepath.Entry{{Path: rel, Link: string(data), Symlink: true}}, "source"); len(bad) > 0 {
			return fail.AsConfig(fmt.Errorf("overlays: %s entry %s: %v; remove the checkout (cache:clean) so it is made and checked again", origin, src, bad[0]))
		}
	}
	w, err := writeAtomic(dst, data, s.kind)
	if err != nil {
		return err
	}
	if old != nil && old.origin == FromOverlay && origin == fromPristine {
		c.restored++
	} else {
		c.written++
	}
	c.changed = append(c.changed, rel)
	m.record(idx, entry{path: rel, size: w.size, mTime: w.mtime, cTime: w.ctime, ino: w.ino, hash: sum, origin: origin, kind: s.kind,
		srcSize: s.size, srcMTime: s.mtime, srcCTime: m.keptCTime(s), srcIno: s.ino}, c)
	return nil
}

// hashOr is the entry's hash, or zero for no entry (never a real SHA-256).
func (e *entry) hashOr() [32]byte {
	if e == nil {
		return [32]byte{}
	}
	return e.hash
}

// record stores the new entry for rel: in place of the old one (each index
// belongs to exactly one worker), or among the extras.
func (m *materializer) record(idx int, e entry, c *dirCounts) {
	if idx < 0 {
		c.extra = append(c.extra, e)
		return
	}
	if m.old.entries[idx] != e {
		m.old.entries[idx] = e
		m.dirty.Store(true)
	}
}

// result is the new manifest: the old entries still in the tree, updated,
// plus the new ones, sorted.
func (m *materializer) result() *Manifest {
	out := &Manifest{dirs: m.dirsFound()}
	kept := 0
	for i := range m.old.entries {
		if m.seen[i] {
			kept++
		}
	}
	if kept != len(m.old.entries) {
		m.dirty.Store(true)
	}
	extra := 0
	for _, x := range m.extra {
		extra += len(x)
	}
	if kept == len(m.old.entries) && extra == 0 {
		out.entries = m.old.entries
		return out
	}
	out.entries = make([]entry, 0, kept+extra)
	for i := range m.old.entries {
		if m.seen[i] {
			out.entries = append(out.entries, m.old.entries[i])
		}
	}
	for i, x := range m.extra {
		out.entries = append(out.entries, x...)
		m.extra[i] = nil // let the collector take each part as soon as it is copied
	}
	slices.SortFunc(out.entries, func(a, b entry) int { return comparePaths(a.path, b.path) })
	return out
}

// bufs are one worker's read buffers, reused across files.
type bufs struct{ src, tree []byte }

func (m *materializer) getBufs() *bufs {
	if b, ok := m.bufs.Get().(*bufs); ok {
		return b
	}
	return &bufs{}
}

// read returns the content of path (a link's target for a link) and its
// SHA-256, reusing *buf.
func (b *bufs) read(path string, kind kind, buf *[]byte) ([]byte, [32]byte, error) {
	if kind == kindLink {
		target, err := os.Readlink(path)
		if err != nil {
			return nil, [32]byte{}, err
		}
		data := []byte(target)
		return data, sha256.Sum256(append([]byte("symlink\x00"), data...)), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, [32]byte{}, err
	}
	defer f.Close()
	data := (*buf)[:0]
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, [32]byte{}, err
		}
	}
	*buf = data
	return data, sha256.Sum256(data), nil
}
