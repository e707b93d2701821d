package overlays

import (
	"io/fs"
	"slices"
)

// A directory's listing is kept in the manifest, so that a no-op reads it
// from there instead of from the directory while the directory is as it was
// (git's untracked cache does the same for the work tree's directories).
// Adding, removing or renaming a name in a directory moves its mtime and
// ctime; so while a directory has the device, inode, mtime and ctime it had
// when it was listed, it holds the names it held then, each of the same
// type. The files themselves are still stat-ed one by one, as before: a
// kept listing saves the getdents calls and their sorting (a tenth of a
// no-op's CPU on the real shape), never a file's own check.
//
// A listing is kept only when it is exact: the directory was stat-ed before
// it was read, and its ctime is older than the lock file's, which was
// written when this run took the backend's lock, before the walk began
// (git's racy rule, with the lock file as the index). A change after the
// stat then gives a ctime at least the lock file's, which the kept one is
// not. A directory on another file system than the lock file must be older
// by memo.OtherDeviceSlack (its time stamps may be coarser). Any file's ctime
// read before the walk would do as well as the lock file's, which is only
// the most recent one: without a lock file (LockFile "") the old
// manifest's serves. A tree directory that the run then writes into keeps
// the listing and identity from before its writes: the writes move its
// ctime, so the next run reads it again.

// The three sides of one directory of the walk.
const (
	sidePristine = iota
	sideOverlay
	sideTree
	sides
)

// dirID is the identity of a directory: what changes when a name in it is
// added, removed or renamed.
type dirID struct {
	dev, ino     uint64
	mtime, ctime int64 // ns since the epoch
}

// dirRecord is one directory's kept listings: for each side that has one
// (has), the directory's identity when it was listed, and the names of all
// kept sides merged, sorted, each with its type on each side. A record read
// from a manifest holds its names as written (names, n), checked only when
// a walk takes them (decode), in the worker that lists the directory; one
// this walk made holds them as ents.
type dirRecord struct {
	rel   string // slash-separated, relative to the tree; "" for the root
	has   [sides]bool
	id    [sides]dirID
	names string // n names as encodeDirs writes them
	n     int
	ents  []recordedName
}

// recordedName is one name of a directory and its type on each side: 0
// where that side has no such name (or no kept listing), else one of the
// typeBytes.
type recordedName struct {
	name string
	typ  [sides]byte
}

// The types a kept listing records, as one byte each.
const (
	typeFile      = 'f'
	typeDir       = 'd'
	typeLink      = 'l'
	typeIrregular = 'i'
)

func typeByte(t fs.FileMode) byte {
	switch t {
	case 0:
		return typeFile
	case fs.ModeDir:
		return typeDir
	case fs.ModeSymlink:
		return typeLink
	}
	return typeIrregular
}

// byteType is typeByte's inverse; ok is false for a byte it never writes.
func byteType(b byte) (fs.FileMode, bool) {
	switch b {
	case typeFile:
		return 0, true
	case typeDir:
		return fs.ModeDir, true
	case typeLink:
		return fs.ModeSymlink, true
	case typeIrregular:
		return fs.ModeIrregular, true
	}
	return 0, false
}

// dirRecord is the manifest's record of rel, or nil.
func (m *Manifest) dirRecord(rel string) *dirRecord {
	i, ok := slices.BinarySearchFunc(m.dirs, rel, func(d dirRecord, rel string) int { return comparePaths(d.rel, rel) })
	if !ok {
		return nil
	}
	return &m.dirs[i]
}

// decode puts the kept listing of each side that rec keeps and the walk
// lists (listed) into lists[side], appending to lists[side][:0]. It is
// false, with every list empty, for names that encodeDirs would not have
// written: out of order, not a name, a type on a side the record does not
// keep, or no type at all.
func (r *dirRecord) decode(lists *[sides][]dirEnt, listed [sides]bool) bool {
	for s := range sides {
		lists[s] = lists[s][:0]
	}
	if r.ents != nil {
		for _, e := range r.ents {
			r.put(lists, listed, e.name, e.typ)
		}
		return true
	}
	b, prev := r.names, ""
	for i := 0; i < r.n; i++ {
		if len(b) < 2 {
			return r.bad(lists)
		}
		l := int(b[0]) | int(b[1])<<8
		if l == 0 || l > maxDirName || len(b) < 2+l+sides {
			return r.bad(lists)
		}
		name := b[2 : 2+l]
		var typ [sides]byte
		copy(typ[:], b[2+l:])
		b = b[2+l+sides:]
		if !isName(name) || i > 0 && name <= prev {
			return r.bad(lists)
		}
		any := false
		for s := range sides {
			if typ[s] == 0 {
				continue
			}
			if _, ok := byteType(typ[s]); !ok || !r.has[s] {
				return r.bad(lists)
			}
			any = true
		}
		if !any {
			return r.bad(lists)
		}
		r.put(lists, listed, name, typ)
		prev = name
	}
	return len(b) == 0 || r.bad(lists)
}

// put adds one name to the lists of the sides it has a type on.
func (r *dirRecord) put(lists *[sides][]dirEnt, listed [sides]bool, name string, typ [sides]byte) {
	for s := range sides {
		if typ[s] != 0 && listed[s] {
			t, _ := byteType(typ[s])
			lists[s] = append(lists[s], dirEnt{name: name, typ: t})
		}
	}
}

func (r *dirRecord) bad(lists *[sides][]dirEnt) bool {
	for s := range sides {
		lists[s] = lists[s][:0]
	}
	return false
}

// newDirRecord merges the sorted listings of the sides that keep theirs
// (keep) into a record of rel.
func newDirRecord(rel string, keep *[sides]bool, id *[sides]dirID, lists [sides][]dirEnt) dirRecord {
	r := dirRecord{rel: rel, has: *keep}
	n := 0
	for s := range sides {
		if keep[s] {
			r.id[s] = id[s]
			n = max(n, len(lists[s]))
		} else {
			lists[s] = nil
		}
	}
	r.ents = make([]recordedName, 0, n)
	for len(lists[0])+len(lists[1])+len(lists[2]) > 0 {
		name := minName(lists[0], lists[1], lists[2])
		e := recordedName{name: name}
		for s := range sides {
			var d *dirEnt
			if d, lists[s] = take(lists[s], name); d != nil {
				e.typ[s] = typeByte(d.typ)
			}
		}
		r.ents = append(r.ents, e)
	}
	return r
}

// sameKeep reports whether r keeps exactly the sides keep, with the
// identities id: then a record made now would be r itself.
func (r *dirRecord) sameKeep(keep *[sides]bool, id *[sides]dirID) bool {
	for s := range sides {
		if r.has[s] != keep[s] || keep[s] && r.id[s] != id[s] {
			return false
		}
	}
	return true
}

// keepListings decides what the new manifest keeps of directory rel's
// listings, once the directory is done: each side listed now whose listing
// the clock lets keep, and each side taken from old. What differs from old (a
// listing kept, changed or dropped) makes the manifest dirty.
func (m *materializer) keepListings(rel string, old *dirRecord, present, fromOld *[sides]bool, id *[sides]dirID, lists *[sides][]dirEnt) {
	var keep [sides]bool
	any := false
	for s := range sides {
		keep[s] = present[s] && (fromOld[s] || m.clock.Older(id[s].dev, id[s].ctime))
		any = any || keep[s]
	}
	if old == nil && !any {
		return
	}
	if old != nil && old.sameKeep(&keep, id) {
		m.mu.Lock()
		m.dirs = append(m.dirs, *old)
		m.mu.Unlock()
		return
	}
	m.dirty.Store(true)
	if !any {
		return
	}
	r := newDirRecord(rel, &keep, id, *lists)
	m.mu.Lock()
	m.dirs = append(m.dirs, r)
	m.mu.Unlock()
}

// dirsFound is the new manifest's directory records, sorted. Every record
// that is not an old one made the manifest dirty already (keepListings), so
// fewer records than the old manifest had means one was left behind, by a
// directory that is gone.
func (m *materializer) dirsFound() []dirRecord {
	if len(m.dirs) != len(m.old.dirs) {
		m.dirty.Store(true)
	}
	slices.SortFunc(m.dirs, func(a, b dirRecord) int { return comparePaths(a.rel, b.rel) })
	return m.dirs
}
