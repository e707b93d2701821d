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
// change since the last run), sorted.
type Stats struct {
	Written, Restored, Removed, Unchanged, Touched, Dependents int
	Changed                                                    []string
	HandEdited                                                 []string
}

// workers is how many directories Materialize works on at once. The work is
// mostly system calls on cached inodes, so a little more than one per CPU
// keeps every CPU busy while one worker waits.
var workers = runtime.GOMAXPROCS(0) + 2

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
// the tree and is not rewritten when nothing changed. Killing Materialize at
// any moment leaves every file of the tree either old or new, and the next
// run converges.
//
// Overlay entries that are symbolic links or not regular files are refused,
// as are records that are absolute or escape the overlay with "..", and
// trees that overlap a source. The caller holds the backend's lock
// (cache.Lock) so that two runs never work on one tree at once.
func Materialize(pristine, overlay, tree, manifestPath string, records []string) (Stats, *Manifest, error) {
	m, err := newMaterializer(pristine, overlay, tree, records)
	if err != nil {
		return Stats{}, nil, err
	}
	m.old = readManifest(manifestPath)
	m.seen = make([]bool, len(m.old.entries))
	if err := os.MkdirAll(m.tree, 0o755); err != nil {
		return Stats{}, nil, fmt.Errorf("overlays: creating tree %s: %w; make the cache directory writable or set MLXBUILD_CACHE", m.tree, err)
	}
	m.spawn("", true, m.overlay != "")
	m.wg.Wait()
	if m.err != nil {
		return Stats{}, nil, m.err
	}
	slices.Sort(m.stats.Changed)
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
	records                 map[string]bool
	old                     *Manifest
	seen                    []bool // old.Entries[i] still names a tree file

	sem   chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex // guards stats, extra and err
	stats Stats
	extra [][]entry // tree files the old manifest did not list, per directory (no big regrowing slice)
	err   error
	dirty atomic.Bool // the manifest must be rewritten
	bufs  sync.Pool
}

func newMaterializer(pristine, overlay, tree string, records []string) (*materializer, error) {
	m := &materializer{records: map[string]bool{}, sem: make(chan struct{}, max(1, workers))}
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
		m.records[r] = true
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

// spawn schedules the directory rel. Parents never wait for their children
// (only the top-level WaitGroup does), so the semaphore cannot deadlock.
func (m *materializer) spawn(rel string, inPristine, inOverlay bool) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.sem <- struct{}{}
		defer func() { <-m.sem }()
		if m.failed() {
			return
		}
		if err := m.dir(rel, inPristine, inOverlay); err != nil {
			m.fail(err)
		}
	}()
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

// openDir opens a directory and lists it sorted by name; a missing one is
// empty (and nil). The open directory lets file stat its entries with
// fstatat relative to it, which saves the kernel a walk of the whole path.
func openDir(what, dir string) (*os.File, []os.DirEntry, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	var es []os.DirEntry
	if err == nil {
		es, err = f.ReadDir(-1)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, nil, fmt.Errorf("overlays: reading %s directory %s: %w; check its permissions", what, dir, err)
	}
	slices.SortFunc(es, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return f, es, nil
}

// dirFDs are the open directories of one rel in the three trees (-1: none).
type dirFDs struct{ pristine, overlay, tree int }

func fdOf(f *os.File) int {
	if f == nil {
		return -1
	}
	return int(f.Fd())
}

// dir brings one directory of the tree in line with the same directory of
// pristine and overlay, and schedules its subdirectories. The three listings
// are merged by name (each is sorted).
func (m *materializer) dir(rel string, inPristine, inOverlay bool) error {
	var ps, os_, ts []os.DirEntry
	var pf, of, tf *os.File
	var err error
	defer func() {
		for _, f := range []*os.File{pf, of, tf} {
			if f != nil {
				f.Close()
			}
		}
	}()
	if inPristine {
		if pf, ps, err = openDir("pristine", join(m.pristine, rel)); err != nil {
			return err
		}
	}
	if inOverlay {
		if of, os_, err = openDir("overlay", join(m.overlay, rel)); err != nil {
			return err
		}
	}
	if tf, ts, err = openDir("tree", join(m.tree, rel)); err != nil {
		return err
	}
	fds := dirFDs{fdOf(pf), fdOf(of), fdOf(tf)}
	var c dirCounts
	for len(ps)+len(os_)+len(ts) > 0 {
		name := minName(ps, os_, ts)
		var p, o, t os.DirEntry
		p, ps = take(ps, name)
		o, os_ = take(os_, name)
		t, ts = take(ts, name)
		if err := m.entry(rel, name, p, o, t, fds, &c); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.stats.Written += c.written
	m.stats.Restored += c.restored
	m.stats.Removed += c.removed
	m.stats.Unchanged += c.unchanged
	m.stats.Touched += c.touched
	m.stats.Changed = append(m.stats.Changed, c.changed...)
	m.stats.HandEdited = append(m.stats.HandEdited, c.handEdited...)
	if len(c.extra) > 0 {
		m.extra = append(m.extra, c.extra)
	}
	m.mu.Unlock()
	if c.written+c.restored+c.removed+c.touched+len(c.extra) > 0 {
		m.dirty.Store(true)
	}
	return nil
}

// dirCounts is one directory's share of Stats, merged under the lock once.
type dirCounts struct {
	written, restored, removed, unchanged, touched int
	changed                                        []string
	handEdited                                     []string
	extra                                          []entry
}

func minName(lists ...[]os.DirEntry) string {
	name, ok := "", false
	for _, l := range lists {
		if len(l) > 0 && (!ok || l[0].Name() < name) {
			name, ok = l[0].Name(), true
		}
	}
	return name
}

func take(l []os.DirEntry, name string) (os.DirEntry, []os.DirEntry) {
	if len(l) > 0 && l[0].Name() == name {
		return l[0], l[1:]
	}
	return nil, l
}

// entry decides what one name of a directory must be in the tree and makes
// it so: a directory (recursed into), a file from overlay or pristine, or
// nothing.
func (m *materializer) entry(dirRel, name string, p, o, t os.DirEntry, fds dirFDs, c *dirCounts) error {
	rel := name
	if dirRel != "" {
		rel = dirRel + "/" + name
	}
	if dirRel == "" && name == ".git" {
		p, o = nil, nil // the checkout's (or the overlay's) repository is not source
	}
	if strings.HasPrefix(name, tmpPrefix) {
		p, o = nil, nil // ours, left by a killed run
	}
	if o != nil && m.records[rel] {
		o = nil
	}
	if o != nil {
		if err := safepath.CheckControl(name); err != nil {
			// The name would reach the tree, the stamp and the build's
			// outputs, where line-based formats cannot hold it.
			return fmt.Errorf("overlays: overlay entry %s: %v", join(m.overlay, dirRel), err)
		}
		switch typ := o.Type(); {
		case typ&fs.ModeSymlink != 0:
			return fmt.Errorf("overlays: overlay entry %s is a symbolic link; an overlay holds whole files: replace the link with the file it points to", join(m.overlay, rel))
		case !typ.IsDir() && !typ.IsRegular():
			return fmt.Errorf("overlays: overlay entry %s is not a regular file (%s); remove it from the overlay", join(m.overlay, rel), typ.Type())
		}
	}
	if p != nil && !p.IsDir() && !p.Type().IsRegular() && p.Type()&fs.ModeSymlink == 0 {
		return fmt.Errorf("overlays: pristine entry %s is not a regular file, link or directory (%s); re-create the checkout (cache:clean)", join(m.pristine, rel), p.Type().Type())
	}
	switch {
	case o != nil && o.IsDir():
		if p != nil && !p.IsDir() {
			return fmt.Errorf("overlays: overlay directory %s would replace the pristine file %s; an overlay can only replace files with files", join(m.overlay, rel), join(m.pristine, rel))
		}
		return m.wantDir(rel, p != nil, true, t, c)
	case o != nil:
		if p != nil && p.IsDir() {
			return fmt.Errorf("overlays: overlay file %s would replace the pristine directory %s; an overlay can only replace files with files", join(m.overlay, rel), join(m.pristine, rel))
		}
		return m.file(rel, name, FromOverlay, join(m.overlay, rel), fds.overlay, t, fds.tree, c)
	case p != nil && p.IsDir():
		return m.wantDir(rel, true, false, t, c)
	case p != nil:
		return m.file(rel, name, fromPristine, join(m.pristine, rel), fds.pristine, t, fds.tree, c)
	case t != nil:
		return m.remove(rel, t, c)
	}
	return nil
}

// wantDir makes rel a directory of the tree and schedules it.
func (m *materializer) wantDir(rel string, inPristine, inOverlay bool, t os.DirEntry, c *dirCounts) error {
	if t != nil && !t.IsDir() {
		if err := m.remove(rel, t, c); err != nil {
			return err
		}
		t = nil
	}
	if t == nil {
		if err := os.Mkdir(join(m.tree, rel), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("overlays: creating tree directory %s: %w; make %s writable", join(m.tree, rel), err, m.tree)
		}
	}
	m.spawn(rel, inPristine, inOverlay)
	return nil
}

// remove deletes a tree entry that should not be there, counting the files
// it held.
func (m *materializer) remove(rel string, t os.DirEntry, c *dirCounts) error {
	abs := join(m.tree, rel)
	n := 1
	if t.IsDir() {
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
	if strings.HasPrefix(t.Name(), tmpPrefix) {
		return nil // debris of a killed run, not a change
	}
	c.removed += n
	c.changed = append(c.changed, rel)
	return nil
}
