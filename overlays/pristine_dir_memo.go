package overlays

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// A source.dir checkout is checked on every run (checkDirEntries), since
// the user may change it between any two; on a real-size source that walk
// (a listing of every folder) was the largest part of a no-op's CPU beyond
// 14a2888's (docs/benchmarks.md). What the check
// reads is only the folders' listings (names, types, link targets), so its
// verdict holds while every folder keeps its identity: adding, removing,
// renaming or replacing an entry (a link is replaced, never edited) changes
// its folder's mtime and ctime. A passed check is kept in the discovery
// folder against the identity of every folder it read, and the next run
// stats those folders instead of listing them (a build leaves that to its
// walk of the same folders: pristine_dir_kept.go). A source with .gitmodules
// (whose check asks git for the index) and a failed check are never kept.

// sourceDirKind names the kept check's entries (internal/memo).
const sourceDirKind = "source-dir-check"

// sourceDirMemoFile is the kept check's file in the discovery folder
// (cache.Layout.Discovery), shared by every backend as the source is.
const sourceDirMemoFile = "source-dir.memo"

// sourceNow is the racy rule's clock for the kept check (a variable so a
// test can move it).
var sourceNow = time.Now

// walkSourceDir is the check itself (a variable so a test can count it).
var walkSourceDir = checkDirEntries

// checkSourceDir refuses what the source.dir checkout dir may not hold
// (checkDirEntries), or finds the same check, passed, kept under cacheRoot
// while every folder it read is unchanged.
func checkSourceDir(ctx context.Context, cacheRoot, dir string) error {
	root, err := filepath.EvalSymlinks(dir)
	if cacheRoot == "" || err != nil {
		return walkSourceDir(ctx, dir) // it names the error
	}
	discovery := filepath.Join(cacheRoot, "discovery")
	keys := [][2]string{{"root", root}}
	if _, ok := memo.Load(filepath.Join(discovery, sourceDirMemoFile), sourceDirKind, keys, os.Getenv); ok {
		return nil
	}
	// Read before the walk: a folder changed after this instant has a
	// ctime too recent to be kept (see keptFolders).
	clock := sourceNow()
	if err := walkSourceDir(ctx, dir); err != nil {
		return err
	}
	if files, ok := keptFolders(root, clock); ok {
		memo.StoreInCache(discovery, sourceDirMemoFile, sourceDirKind, memo.Entry{Keys: keys, Files: files})
	}
	return nil
}

// keptFolders are the identity keys, in path order, of every folder the
// check of root read (root's own .git aside, links not followed); not ok
// when the check may not be kept: root holds .gitmodules, a folder cannot
// be read, or one changed too recently. The racy rule (git's, as
// memo.Clock): a folder whose ctime is a full memo.OtherDeviceSlack older
// than clock, read before the check began, was last changed before the
// check listed it, and any later change gives it a newer ctime; a folder
// changed since may have been listed before its change, in the same tick.
func keptFolders(root string, clock time.Time) ([]string, bool) {
	if _, err := os.Lstat(filepath.Join(root, ".gitmodules")); !errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	limit := clock.Add(-memo.OtherDeviceSlack).UnixNano()
	var files []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return nil
		}
		if p == filepath.Join(root, ".git") {
			return filepath.SkipDir
		}
		id := memo.Of(p)
		if id.Absent || id.Mode&syscall.S_IFMT != syscall.S_IFDIR || id.Ctime >= limit {
			return errKeepNot
		}
		files = append(files, id.Key())
		return nil
	})
	slices.Sort(files)
	return files, err == nil
}

// errKeepNot stops keptFolders' walk at a folder that may not be kept.
var errKeepNot = errors.New("not kept")
