package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// folderError refuses a path under the cache root that mlxbuild would write
// into or delete from, and that is not a folder (or file) of its own: a
// symbolic link a user or a tool planted (to their own directory), a
// mount, something another user owns. Writing through it would delete or
// rewrite what is there.
type folderError struct {
	path string
	what string // "is a symbolic link to /home/u/x"
	fix  string // "remove the link"
}

func (e *folderError) Error() string {
	return fmt.Sprintf("cache: %s %s; mlxbuild writes only into folders it made; %s", e.path, e.what, e.fix)
}

// Kind is Config: the cache must be put right by the user.
func (e *folderError) Kind() fail.Kind { return fail.Config }

// CheckFolder is the one answer to "may mlxbuild write into, or delete
// from, dir": every writer under the cache asks it before its first write
// (the layout's folders through Prepare and Layout.CheckFolders, the root's
// shared folders through EnsureRoot, clean, the lock's folder, the
// discovery memos, scratch folders). root must hold mlxbuild's CACHEDIR.TAG,
// dir must lie inside it, and each component from root down to dir, dir
// included, must be a real directory, not a symbolic link, on root's device
// and owned by root's owner: what mlxbuild made there. A component that
// does not exist yet ends the walk: mlxbuild makes it, so it is its own.
// root itself may be reached through links: MLXBUILD_CACHE or cache: is
// the user's choice. It only reads.
func CheckFolder(root, dir string) error {
	id, err := rootIdentity(root)
	if err != nil {
		return err
	}
	return id.checkFolder(dir)
}

// rootOwner is what every folder under a cache root shares with it.
type rootOwner struct {
	root string
	dev  uint64
	uid  uint32
}

// rootIdentity reads the root's device and owner, refusing a root that is
// not mlxbuild's.
func rootIdentity(root string) (rootOwner, error) {
	st, err := os.Stat(root)
	if err != nil {
		return rootOwner{}, fmt.Errorf("cache: %s: %w", root, err)
	}
	if !st.IsDir() {
		return rootOwner{}, &ForeignRootError{root: root, Reason: "is a file, not a directory"}
	}
	if !tagged(root) {
		return rootOwner{}, &ForeignRootError{root: root, Reason: "has no " + tagName + " of mlxbuild, so it is not mlxbuild's cache"}
	}
	dev, uid := identity(st)
	return rootOwner{root: root, dev: dev, uid: uid}, nil
}

// identity is a file's device and owner.
func identity(st fs.FileInfo) (dev uint64, uid uint32) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), s.Uid
	}
	return 0, 0
}

// checkFolder is CheckFolder under a root already read.
func (o rootOwner) checkFolder(dir string) error {
	return o.walk(dir, true)
}

// checkFile checks a file mlxbuild writes in place (opens, truncates,
// appends to: a lock, a log): its folder as checkFolder does, and the file,
// when it exists, a regular file of the root's owner on its device, never
// a link to someone's file.
func (o rootOwner) checkFile(path string) error {
	return o.walk(path, false)
}

// walk checks each component of path below the root; the last is a folder
// when folder is true, else a regular file.
func (o rootOwner) walk(path string, folder bool) error {
	rel, err := filepath.Rel(o.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("cache: %s is not inside the cache root %s", path, o.root)
	}
	if rel == "." {
		return nil
	}
	parts := strings.Split(rel, string(filepath.Separator))
	cur := o.root
	for i, c := range parts {
		cur = filepath.Join(cur, c)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cache: checking %s: %w", cur, err)
		}
		last := i == len(parts)-1
		if err := o.own(cur, st, folder || !last); err != nil {
			return err
		}
	}
	return nil
}

// own says why one existing entry is not mlxbuild's: a link, the wrong
// type, another device, another owner.
func (o rootOwner) own(path string, st fs.FileInfo, folder bool) error {
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return &folderError{path: path, what: "is a symbolic link to " + target, fix: "remove the link"}
	case folder && !st.IsDir():
		return &folderError{path: path, what: "is not a folder", fix: "move it out of the cache"}
	case !folder && !st.Mode().IsRegular():
		return &folderError{path: path, what: "is not a regular file", fix: "move it out of the cache"}
	}
	dev, uid := identity(st)
	if dev != o.dev {
		return &folderError{path: path, what: "is on another device than the cache root " + o.root + " (a mount?)", fix: "unmount it or move it out of the cache"}
	}
	// A run as root (sudo) in a user's cache makes its folders as root:
	// they are mlxbuild's too, for a run as root; any other run cannot
	// write there anyway, and is told whose they are.
	if uid != o.uid && !(uid == 0 && os.Geteuid() == 0) {
		return &folderError{path: path, what: fmt.Sprintf("is owned by uid %d, not by uid %d who owns the cache root %s", uid, o.uid, o.root), fix: "move it out of the cache"}
	}
	return nil
}

// sharedFolders are the root's folders every backend shares: rootEntries
// and the discovery memos (Layout.Discovery).
func sharedFolders(root string) []string {
	dirs := []string{filepath.Join(root, "discovery")}
	for _, n := range rootEntries {
		dirs = append(dirs, filepath.Join(root, n))
	}
	return dirs
}

// checkShared checks the root's shared folders (see EnsureRoot).
func checkShared(o rootOwner) error {
	for _, d := range sharedFolders(o.root) {
		if err := o.checkFolder(d); err != nil {
			return err
		}
	}
	return nil
}

// ownFolders are the folders mlxbuild makes in a backend's directory
// besides the Layout's own: the compiler caches (backendEntries) and the
// composed overlay (named here as internal/flow names it: the layers'
// overlay, composed for the tree).
var ownFolders = append([]string{"overlay"}, backendEntries...)

// CheckFolders checks, before anything of the backend is written or
// deleted, every folder of l that mlxbuild writes into (the backend's
// directory, its tree, build, outputs, HIP prefix, compiler caches and
// composed overlay, the discovery memos) and every file it writes in place
// (the lock, the logs, the relink mark); see CheckFolder. out/ may be the
// link to its generation that atomicfile.ReplaceDir makes beside it: that
// generation is checked instead.
func (l Layout) CheckFolders() error {
	o, err := rootIdentity(l.root)
	if err != nil {
		return err
	}
	dirs := []string{l.Dir, l.Tree, l.Build, l.HIPPrefix, l.Discovery, l.outFolder()}
	for _, n := range ownFolders {
		dirs = append(dirs, filepath.Join(l.Dir, n))
	}
	for _, d := range dirs {
		if err := o.checkFolder(d); err != nil {
			return err
		}
	}
	for _, f := range []string{l.Lock, l.Log, l.Log + ".configure", l.Relink} {
		if err := o.checkFile(f); err != nil {
			return err
		}
	}
	return nil
}

// CheckFolder is CheckFolder for a folder under l's root: a scratch folder
// a run makes beside the layout's own (verify's link probe in out/, its
// empty overlay). A folder inside out/ is checked in the generation out/
// links to.
func (l Layout) CheckFolder(dir string) error {
	if rel, err := filepath.Rel(l.Out, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		dir = filepath.Join(l.outFolder(), rel)
	}
	return CheckFolder(l.root, dir)
}

// outFolder is the folder out/ stands for: the generation its link names
// when it is ReplaceDir's (a plain name ".out-gen-*" beside it), else out/
// itself, which must then be a folder.
func (l Layout) outFolder() string {
	t, err := os.Readlink(l.Out)
	if err != nil || t != filepath.Base(t) {
		return l.Out
	}
	if ok, _ := filepath.Match("."+filepath.Base(l.Out)+"-gen-*", t); !ok {
		return l.Out
	}
	return filepath.Join(l.Dir, t)
}
