package overlays

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// Stats counts what Materialize did to the tree. Written counts files that
// were created or rewritten, Restored files that went back from an overlay
// version to the pristine one, Removed entries that neither side has any
// more, Unchanged files left as they were (same inode, same mtime). Touched
// counts files whose source was touched without a change of content: their
// tree copy gets the source's newer mtime, so Ninja recompiles what depends
// on them (a bare touch rebuilding nothing was a pain of the CMake glue).
// Dependents counts HIP sources given a fresh mtime because a file they
// include changed (see hipSourceExts). Changed lists the paths written,
// restored, removed, touched or so marked, sorted. HandEdited lists the tree
// files put back because they were edited in the tree (their source did not
// change since the last run), sorted. listed counts the directory listings
// read from the directories; the others were kept in the manifest (see
// dirRecord).
type Stats struct {
	Written, Restored, Removed, Unchanged, Touched, Dependents int
	listed                                                     int
	Changed                                                    []string
	HandEdited                                                 []string
	// TouchedFiles are the Touched files, sorted: a build says that
	// Ninja redoes their dependents because of them (see PendingTouches).
	TouchedFiles []string
}

// workers is how many directories Materialize works on at once: one per P.
// The work is mostly system calls on cached inodes, during which a worker
// keeps its P, so more workers than Ps would only wait for one, and would
// cost threads and wake-ups (docs/benchmarks.md).
var workers = runtime.GOMAXPROCS(0)

// tmpPrefix starts the name of every temporary file Materialize creates; a
// leftover one (from a killed run) is removed by the next run like any other
// file that neither side has.
const tmpPrefix = ".mlxbuild-tmp-"

// Materialize makes tree = pristine + overlay: every file of the overlay,
// and every file of pristine the overlay does not replace. Files named in
// records (slash-separated paths relative to the overlay, such as "UPSTREAM"
// or "LOCAL_FIXES.md") are never copied. The pristine checkout's .git is not
// copied either. overlay may be "" for a backend without one.
//
// A file whose content and executable bit are already right is left alone,
// so its mtime and inode stay; a changed file is replaced by a temporary file
// renamed over it; a file dropped from the overlay gets its pristine version
// back; anything in the tree that neither side has is removed. The manifest
// at manifestPath (hashes and stat data of every file) lets the next run
// trust files whose stat data did not change; it is replaced atomically after
// the tree and is not rewritten when nothing changed; it also keeps the
// listing of every directory, read again only once the directory changed
// (see dirRecord). Killing Materialize at
// any moment leaves every file of the tree either old or new, and the next
// run converges.
//
// Overlay entries that are symbolic links or not regular files are refused,
// as are records that are absolute or escape the overlay with "..", and
// trees that overlap a source. The caller holds the backend's lock
// (cache.Lock) so that two runs never work on one tree at once.
func Materialize(pristine, overlay, tree, manifestPath string, records []string) (Stats, *Manifest, error) {
	return MaterializeHeld(pristine, overlay, tree, manifestPath, records, Held{})
}

// Held is what a caller that holds the backend's lock adds to Materialize.
type Held struct {
	// LockFile is the lock's file, written when the lock was taken and
	// not since: the clock by which the listing of a directory may be kept
	// for the next run (see dirRecord); "" takes the old manifest's.
	LockFile string
	// Source is a kept source.dir check for the walk to confirm (see
	// sourceCheck); nil when none is pending.
	Source *sourceCheck
}

// MaterializeHeld is Materialize with what the lock's holder adds.
func MaterializeHeld(pristine, overlay, tree, manifestPath string, records []string, h Held) (Stats, *Manifest, error) {
	m, err := newMaterializer(pristine, overlay, tree, records)
	if err != nil {
		return Stats{}, nil, err
	}
	m.old = readManifest(manifestPath)
	m.clock = lockClock(h.LockFile, m.old)
	m.dirs = make([]dirRecord, 0, len(m.old.dirs)+1) // a no-op keeps them all
	m.seen = make([]bool, len(m.old.entries))
	m.src = h.Source
	if _, err := os.Lstat(m.tree); err != nil {
		if err := m.beforeWrite(); err != nil {
			return Stats{}, nil, err
		}
	}
	if err := os.MkdirAll(m.tree, 0o755); err != nil {
		return Stats{}, nil, fmt.Errorf("overlays: creating tree %s: %w; make the cache directory writable or set MLXBUILD_CACHE", m.tree, err)
	}
	m.q.push(dirJob{inPristine: true, inOverlay: m.overlay != "", old: oldCursor{es: m.old.entries}})
	m.q.run(workers, m.job)
	if m.src != nil && (m.err != nil || !m.src.held()) {
		// The check's refusal comes first, as when it ran before the walk.
		if err := m.src.confirm(); err != nil {
			return Stats{}, nil, err
		}
	}
	if m.err != nil {
		return Stats{}, nil, m.err
	}
	slices.Sort(m.stats.Changed)
	slices.Sort(m.stats.TouchedFiles)
	slices.Sort(m.stats.HandEdited)
	man := m.result()
	deps, err := touchDependents(m.tree, man, m.stats.Changed)
	if err != nil {
		return Stats{}, nil, err
	}
	if len(deps) > 0 {
		m.stats.Dependents = len(deps)
		m.stats.Changed = append(m.stats.Changed, deps...)
		slices.Sort(m.stats.Changed)
		m.dirty.Store(true)
	}
	if m.dirty.Load() {
		if err := man.write(manifestPath); err != nil {
			return m.stats, nil, err
		}
	}
	return m.stats, man, nil
}

// materializer is one Materialize call: the roots, the old manifest, and what
// the workers found.
type materializer struct {
	pristine, overlay, tree string
	records                 map[string]map[string]bool // directory -> names of records in it
	old                     *Manifest
	seen                    []bool // old.entries[i] still names a tree file

	clock racyClock    // the racy rule's, for kept listings and files read (see racyClock.older)
	src   *sourceCheck // a kept source.dir check to confirm (Held.Source), or nil

	q        dirQueue
	mu       sync.Mutex // guards stats, extra, dirs and err
	stats    Stats
	extra    [][]entry   // tree files the old manifest did not list, per directory (no big regrowing slice)
	dirs     []dirRecord // the listings the new manifest keeps
	err      error
	dirty    atomic.Bool // the manifest must be rewritten
	bufs     sync.Pool
	listings sync.Pool // of *listings
}

func newMaterializer(pristine, overlay, tree string, records []string) (*materializer, error) {
	m := &materializer{records: map[string]map[string]bool{}}
	m.listings.New = func() any { return new(listings) }
	var err error
	if m.pristine, err = sourceDir("pristine source", pristine, "run the pristine step first, or fix source.dir in mlxbuild.yaml"); err != nil {
		return nil, err
	}
	if overlay != "" {
		if m.overlay, err = sourceDir("overlay directory", overlay, "fix the backend's overlay: path in mlxbuild.yaml"); err != nil {
			return nil, err
		}
	}
	if tree == "" {
		return nil, errors.New("overlays: the tree path is empty; pass the backend's cache.Layout.Tree")
	}
	if m.tree, err = filepath.Abs(tree); err != nil {
		return nil, fmt.Errorf("overlays: tree %s: %w", tree, err)
	}
	if t, err := filepath.EvalSymlinks(m.tree); err == nil {
		m.tree = t
	}
	for _, src := range []struct{ name, dir string }{{"pristine source", m.pristine}, {"overlay", m.overlay}} {
		if src.dir != "" && (within(m.tree, src.dir) || within(src.dir, m.tree)) {
			return nil, fmt.Errorf("overlays: the tree %s and the %s %s overlap; put the cache (MLXBUILD_CACHE) outside the sources", m.tree, src.name, src.dir)
		}
	}
	for _, r := range records {
		if err := checkRel("record", r); err != nil {
			return nil, err
		}
		dir, name := "", r
		if i := strings.LastIndexByte(r, '/'); i >= 0 {
			dir, name = r[:i], r[i+1:]
		}
		if m.records[dir] == nil {
			m.records[dir] = map[string]bool{}
		}
		m.records[dir][name] = true
	}
	return m, nil
}

// sourceDir resolves a source directory and checks that it is one.
func sourceDir(what, dir, fix string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("overlays: %s %s: %w; %s", what, dir, errors.Unwrap(err), fix)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("overlays: %s %s: %w; %s", what, dir, err, fix)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("overlays: %s %s is not a directory; %s", what, dir, fix)
	}
	return abs, nil
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// checkRel refuses a relative path that is absolute or escapes with "..".
func checkRel(what, p string) error {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		return fmt.Errorf("overlays: %s %q is empty or absolute; name it relative to the overlay directory", what, p)
	}
	if c := filepath.ToSlash(filepath.Clean(p)); c != p || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("overlays: %s %q is not a clean path inside the overlay (no .., no ./, no trailing /); write it as %q", what, p, c)
	}
	return nil
}

// job works on one directory; after the first failure it only drains the
// queue.
func (m *materializer) job(j dirJob) {
	if m.failed() {
		return
	}
	if err := m.dir(j); err != nil {
		m.fail(err)
	}
}

func (m *materializer) failed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err != nil
}

func (m *materializer) fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// join makes an absolute path from a root and a slash-separated relative one.
func join(root, rel string) string {
	if rel == "" {
		return root
	}
	return root + "/" + rel
}

// listings are one directory's three listings, reused by the next
// directory a worker takes (the entries are copied out of them, never
// kept).
type listings struct {
	side [sides][]dirEnt // pristine's, the overlay's and the tree's
}

// openDirs are the open directories of one rel in the three trees (noDir:
// none there).
type openDirs struct{ pristine, overlay, tree dirFD }

// sideNames name the sides in errors.
var sideNames = [sides]string{"pristine", "overlay", "tree"}

// dir brings one directory of the tree in line with the same directory of
// pristine and overlay, and schedules its subdirectories. The three listings
// are merged by name (each is sorted).
func (m *materializer) dir(j dirJob) error {
	rel := j.rel
	l := m.listings.Get().(*listings)
	open := [sides]dirFD{noDir, noDir, noDir} // noDir: none there
	for s := range sides {
		l.side[s] = l.side[s][:0] // a directory not listed on a side is empty there
	}
	defer func() {
		for _, f := range open {
			if f.opened() {
				f.Close()
			}
		}
		m.listings.Put(l)
	}()
	listed := [sides]bool{j.inPristine, j.inOverlay, true}
	roots := [sides]string{m.pristine, m.overlay, m.tree}
	c := dirCounts{old: j.old, records: m.records[rel]}
	rec := m.old.dirRecord(rel)
	if rec != nil && !rec.decode(&l.side, listed) {
		rec = nil // not one this package wrote: listed, and replaced
		m.dirty.Store(true)
	}
	var (
		present, fromRec [sides]bool
		ids              [sides]dirID
		err              error
	)
	for s := range sides {
		if !listed[s] {
			continue
		}
		if open[s], l.side[s], ids[s], fromRec[s], err = listSide(sideNames[s], roots[s], rel, s, rec, l.side[s]); err != nil {
			return err
		}
		present[s] = open[s].opened()
		if present[s] && !fromRec[s] {
			c.listed++
		}
	}
	if m.src != nil && present[sidePristine] {
		m.src.opened(rel, ids[sidePristine])
	}
	dirs := openDirs{open[sidePristine], open[sideOverlay], open[sideTree]}
	ps, os_, ts := l.side[sidePristine], l.side[sideOverlay], l.side[sideTree]
	for len(ps)+len(os_)+len(ts) > 0 {
		name := minName(ps, os_, ts)
		var p, o, t *dirEnt
		p, ps = take(ps, name)
		o, os_ = take(os_, name)
		t, ts = take(ts, name)
		if err := m.entry(rel, name, p, o, t, dirs, &c); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.stats.Written += c.written
	m.stats.Restored += c.restored
	m.stats.Removed += c.removed
	m.stats.Unchanged += c.unchanged
	m.stats.Touched += c.touched
	m.stats.listed += c.listed
	m.stats.Changed = append(m.stats.Changed, c.changed...)
	m.stats.HandEdited = append(m.stats.HandEdited, c.handEdited...)
	m.stats.TouchedFiles = append(m.stats.TouchedFiles, c.touchedFiles...)
	if len(c.extra) > 0 {
		m.extra = append(m.extra, c.extra)
	}
	m.mu.Unlock()
	if c.written+c.restored+c.removed+c.touched+len(c.extra) > 0 {
		m.dirty.Store(true)
	}
	m.keepListings(rel, rec, &present, &fromRec, &ids, &l.side)
	return nil
}

// dirCounts is one directory's share of Stats, merged under the lock once.
type dirCounts struct {
	written, restored, removed, unchanged, touched int
	listed                                         int
	changed                                        []string
	handEdited                                     []string
	touchedFiles                                   []string
	extra                                          []entry

	old     oldCursor       // the old manifest's entries not yet passed
	records map[string]bool // names of records in this directory
}

func minName(lists ...[]dirEnt) string {
	name, ok := "", false
	for _, l := range lists {
		if len(l) > 0 && (!ok || l[0].name < name) {
			name, ok = l[0].name, true
		}
	}
	return name
}

func take(l []dirEnt, name string) (*dirEnt, []dirEnt) {
	if len(l) > 0 && l[0].name == name {
		return &l[0], l[1:]
	}
	return nil, l
}

// entry decides what one name of a directory must be in the tree and makes
// it so: a directory (recursed into), a file from overlay or pristine, or
// nothing. It builds no path for a file that turns out unchanged.
func (m *materializer) entry(dirRel, name string, p, o, t *dirEnt, dirs openDirs, c *dirCounts) error {
	if dirRel == "" && name == ".git" {
		p, o = nil, nil // the checkout's (or the overlay's) repository is not source
	}
	if strings.HasPrefix(name, tmpPrefix) {
		p, o = nil, nil // ours, left by a killed run
	}
	if o != nil && c.records[name] {
		o = nil
	}
	if o != nil {
		if err := safepath.CheckControl(name); err != nil {
			// The name would reach the tree, the stamp and the build's
			// outputs, where line-based formats cannot hold it.
			return fmt.Errorf("overlays: overlay entry %s: %v", join(m.overlay, dirRel), err)
		}
		switch o.typ {
		case fs.ModeSymlink:
			return fmt.Errorf("overlays: overlay entry %s is a symbolic link; an overlay holds whole files: replace the link with the file it points to", join(m.overlay, joinRel(dirRel, name)))
		case fs.ModeIrregular:
			path := join(m.overlay, joinRel(dirRel, name))
			return fmt.Errorf("overlays: overlay entry %s is not a regular file (%s); remove it from the overlay", path, irregularType(path))
		}
	}
	if p != nil {
		// Pristine checks the source's entries before the first write;
		// this holds for a checkout an earlier mlxbuild made.
		if err := safepath.CheckControl(name); err != nil {
			return fail.AsConfig(fmt.Errorf("overlays: pristine entry %s: %v; remove the checkout (cache:clean) so it is made and checked again", join(m.pristine, dirRel), err))
		}
	}
	if p != nil && p.typ == fs.ModeIrregular {
		path := join(m.pristine, joinRel(dirRel, name))
		return fmt.Errorf("overlays: pristine entry %s is not a regular file, link or directory (%s); re-create the checkout (cache:clean)", path, irregularType(path))
	}
	switch {
	case o != nil && o.isDir():
		if p != nil && !p.isDir() {
			rel := joinRel(dirRel, name)
			return fmt.Errorf("overlays: overlay directory %s would replace the pristine file %s; an overlay can only replace files with files", join(m.overlay, rel), join(m.pristine, rel))
		}
		return m.wantDir(joinRel(dirRel, name), p != nil, true, t, c)
	case o != nil:
		if p != nil && p.isDir() {
			rel := joinRel(dirRel, name)
			return fmt.Errorf("overlays: overlay file %s would replace the pristine directory %s; an overlay can only replace files with files", join(m.overlay, rel), join(m.pristine, rel))
		}
		return m.file(dirRel, name, FromOverlay, m.overlay, dirs.overlay, t, dirs.tree, c)
	case p != nil && p.isDir():
		return m.wantDir(joinRel(dirRel, name), true, false, t, c)
	case p != nil:
		return m.file(dirRel, name, fromPristine, m.pristine, dirs.pristine, t, dirs.tree, c)
	case t != nil:
		return m.remove(joinRel(dirRel, name), t, c)
	}
	return nil
}

// joinRel is the slash path of name in the directory dirRel ("" the root).
func joinRel(dirRel, name string) string {
	if dirRel == "" {
		return name
	}
	return dirRel + "/" + name
}

// wantDir makes rel a directory of the tree and schedules it, with its part
// of the old manifest.
func (m *materializer) wantDir(rel string, inPristine, inOverlay bool, t *dirEnt, c *dirCounts) error {
	if t != nil && !t.isDir() {
		if err := m.remove(rel, t, c); err != nil {
			return err
		}
		t = nil
	}
	if t == nil {
		if err := m.beforeWrite(); err != nil {
			return err
		}
		if err := os.Mkdir(join(m.tree, rel), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("overlays: creating tree directory %s: %w; make %s writable", join(m.tree, rel), err, m.tree)
		}
	}
	m.q.push(dirJob{rel: rel, inPristine: inPristine, inOverlay: inOverlay, old: c.old.dir(rel[strings.LastIndexByte(rel, '/')+1:])})
	return nil
}

// beforeWrite confirms a kept source.dir check before the walk's first
// write to the tree (see sourceCheck).
func (m *materializer) beforeWrite() error {
	if m.src == nil {
		return nil
	}
	return m.src.confirm()
}

// remove deletes a tree entry that should not be there, counting the files
// it held.
func (m *materializer) remove(rel string, t *dirEnt, c *dirCounts) error {
	if err := m.beforeWrite(); err != nil {
		return err
	}
	abs := join(m.tree, rel)
	n := 1
	if t.isDir() {
		n = 0
		filepath.WalkDir(abs, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
	}
	if err := os.RemoveAll(abs); err != nil {
		return fmt.Errorf("overlays: removing %s from the tree: %w; make %s writable", abs, err, m.tree)
	}
	if strings.HasPrefix(t.name, tmpPrefix) {
		return nil // debris of a killed run, not a change
	}
	c.removed += n
	c.changed = append(c.changed, rel)
	return nil
}
