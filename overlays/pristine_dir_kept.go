package overlays

import (
	"context"
	"path/filepath"
	"slices"
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

// keptFolder is the folder a kept check's key names (memo.ID's key),
// relative to root, and its identity as the walk takes it (mode and size
// aside: a change of either changes ctime).
func keptFolder(root, key string) (string, dirID, bool) {
	id, ok := memo.ParseKey(key)
	if !ok || id.Absent || id.Link != "" { // a folder the check read is neither
		return "", dirID{}, false
	}
	rel, ok := "", id.Path == root
	if !ok {
		rel, ok = strings.CutPrefix(id.Path, root+string(filepath.Separator))
	}
	return filepath.ToSlash(rel), dirID{dev: id.Dev, ino: id.Ino, mtime: id.Mtime, ctime: id.Ctime}, ok
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
