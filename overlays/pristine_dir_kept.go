package overlays

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// A kept source.dir check (pristine_dir_memo.go) holds while every folder
// it read keeps its identity, and the materializer opens and fstats every
// pristine folder anyway. So for a build, the kept check is confirmed by
// the walk itself rather than by a stat of each folder beforehand (about
// 0.7 ms of a real-shape no-op, docs/benchmarks.md, "round three"): the
// walk notes each pristine folder's identity, runs the check itself
// (checkSourceDir) before its first write to the tree, and at its end when
// a folder differed or was not opened. A refused source so still leaves
// the tree unwritten.

// sourceCheck is a kept source.dir check not yet confirmed (PristineKept),
// for MaterializeHeld (Held.Source).
type sourceCheck struct {
	ctx            context.Context
	cacheRoot, dir string
	kept           map[string]dirID // the folders the kept check read, by slash path relative to the source
	matched        atomic.Int64     // folders the walk opened with their kept identity
	once           sync.Once
	err            error
}

// PristineKept is Pristine, except that a source.dir's check, when a
// passed one is kept, is not confirmed here but handed back (nil: none
// pending) for MaterializeHeld to confirm.
func PristineKept(ctx context.Context, cacheRoot string, s Source) (string, *sourceCheck, error) {
	if s.Dir == "" {
		dir, err := Pristine(ctx, cacheRoot, s)
		return dir, nil, err
	}
	dir, err := pristineDir(ctx, s)
	if err != nil {
		return "", nil, err
	}
	if c := keptSourceCheck(ctx, cacheRoot, dir); c != nil {
		return dir, c, nil
	}
	if err := checkSourceDir(ctx, cacheRoot, dir); err != nil {
		return "", nil, err
	}
	return dir, nil, nil
}

// keptSourceCheck is the kept check of the source.dir dir under
// cacheRoot, its folders not yet looked at; nil when there is none.
func keptSourceCheck(ctx context.Context, cacheRoot, dir string) *sourceCheck {
	root, err := filepath.EvalSymlinks(dir)
	if cacheRoot == "" || err != nil {
		return nil
	}
	text, err := memo.ReadString(filepath.Join(cacheRoot, "discovery", sourceDirMemoFile))
	if err != nil {
		return nil
	}
	e, ok := memo.ParseString(sourceDirKind, text)
	if !ok || !slices.Equal(e.Keys, [][2]string{{"root", root}}) || len(e.Env) > 0 {
		return nil
	}
	c := &sourceCheck{ctx: ctx, cacheRoot: cacheRoot, dir: dir, kept: make(map[string]dirID, len(e.Files))}
	for _, key := range e.Files {
		rel, id, ok := keptFolder(root, key)
		if !ok {
			return nil
		}
		c.kept[rel] = id
	}
	return c
}

// keptFolder is the folder a kept check's key names (memo.ID's key: the
// quoted path, then mode, size, mtime, ctime, inode and device), relative
// to root, and its identity as the walk takes it (mode and size aside: a
// change of either changes ctime).
func keptFolder(root, key string) (string, dirID, bool) {
	q, err := strconv.QuotedPrefix(key)
	if err != nil {
		return "", dirID{}, false
	}
	p, err := strconv.Unquote(q)
	f := strings.Fields(key[len(q):])
	if err != nil || len(f) != 6 {
		return "", dirID{}, false
	}
	rel, ok := "", p == root
	if !ok {
		rel, ok = strings.CutPrefix(p, root+string(filepath.Separator))
	}
	mtime, err1 := strconv.ParseInt(f[2], 10, 64)
	ctime, err2 := strconv.ParseInt(f[3], 10, 64)
	ino, err3 := strconv.ParseUint(f[4], 10, 64)
	dev, err4 := strconv.ParseUint(f[5], 10, 64)
	if !ok || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return "", dirID{}, false
	}
	return filepath.ToSlash(rel), dirID{dev: dev, ino: ino, mtime: mtime, ctime: ctime}, true
}

// opened notes that the walk opened the pristine folder rel with the
// identity id.
func (c *sourceCheck) opened(rel string, id dirID) {
	if k, ok := c.kept[rel]; ok && k == id {
		c.matched.Add(1)
	}
}

// held reports whether the walk opened every folder of the kept check
// with the identity it had.
func (c *sourceCheck) held() bool { return int(c.matched.Load()) == len(c.kept) }

// confirm runs the check (checkSourceDir: the kept one, by its folders'
// stats, or the walk of the source), once.
func (c *sourceCheck) confirm() error {
	c.once.Do(func() { c.err = checkSourceDir(c.ctx, c.cacheRoot, c.dir) })
	return c.err
}
