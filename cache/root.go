package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// tagName and tagBody mark a directory as mlxbuild's cache, both for
// mlxbuild (a root holding anything else is refused, and Clean empties only
// a tagged root) and for backup tools that honour the Cache Directory
// Tagging convention. tagMark is the part that tells mlxbuild's tag from
// another tool's (Cargo tags its target/ directory too).
const (
	tagName = "CACHEDIR.TAG"
	tagMark = "made by mlxbuild"
	tagBody = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache " + tagMark + "; `mage cache:clean` removes it.\n"
)

// ForeignRootError says that a cache root already exists and is not
// mlxbuild's: writing into it (or cleaning it later) could touch files that
// belong to the user or to another tool.
type ForeignRootError struct {
	root   string
	Reason string
}

func (e *ForeignRootError) Error() string {
	return fmt.Sprintf("%s %s", e.root, e.Reason)
}

// Kind is Config: the cache root is a configuration mistake.
func (e *ForeignRootError) Kind() fail.Kind { return fail.Config }

// CheckRoot reports whether root may be used as mlxbuild's cache: it does
// not exist yet, is an empty directory, or holds mlxbuild's CACHEDIR.TAG.
// It only reads.
func CheckRoot(root string) error {
	_, err := checkRoot(root)
	return err
}

// checkRoot is CheckRoot, also saying whether root holds the tag (so that
// EnsureRoot reads it once).
func checkRoot(root string) (isTagged bool, err error) {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("cache: %s: %w", root, err)
	case !st.IsDir():
		return false, &ForeignRootError{root: root, Reason: "is a file, not a directory"}
	}
	if tagged(root) {
		return true, nil
	}
	empty, err := emptyButTagWrites(root)
	if err != nil {
		return false, fmt.Errorf("cache: reading %s: %w", root, err)
	}
	// The tag is renamed into place before anything else is written:
	// another run may have tagged the root and started its work since the
	// first look, so a root that holds files is looked at again.
	if !empty && tagged(root) {
		return true, nil
	}
	if !empty {
		return false, &ForeignRootError{root: root, Reason: "already holds files and no " + tagName + " of mlxbuild, so it is not mlxbuild's cache"}
	}
	return false, nil
}

// tagged says whether root holds mlxbuild's own CACHEDIR.TAG.
func tagged(root string) bool {
	b, err := os.ReadFile(filepath.Join(root, tagName))
	return err == nil && bytes.Contains(b, []byte(tagMark))
}

// EnsureRoot makes root mlxbuild's cache before anything is written under
// it: it creates a missing root and tags it, tags an empty one (nothing in
// it can be lost), keeps a tagged one, and refuses any other directory.
// Every writer under the root calls it first, so the tag is only ever
// written into a directory mlxbuild made; and it checks the root's shared
// folders (the pristine sources, the dependency store, the discovery
// memos, ...) with CheckFolder, so no writer goes through a link planted
// there.
func EnsureRoot(root string) error {
	if root == "" {
		return errors.New("cache: the cache root is empty; set MLXBUILD_CACHE or cache: in mlxbuild.yaml")
	}
	isTagged, err := checkRoot(root)
	if err != nil {
		return err
	}
	if !isTagged {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return fmt.Errorf("cache: creating %s: %w; set MLXBUILD_CACHE (or cache: in mlxbuild.yaml) to a writable directory", root, err)
		}
		if err := atomicWrite("cache tag", filepath.Join(root, tagName), []byte(tagBody)); err != nil {
			return err
		}
	}
	o, err := rootIdentity(root)
	if err != nil {
		return err
	}
	return checkShared(o)
}

// emptyButTagWrites says whether dir holds nothing but the temporary files
// of tag writes (rootTempPatterns). Another mlxbuild that started with this
// one makes the root and writes the tag through such a file: until its
// rename, the root holds only that file, and it is as good as empty (both
// write the same tag, and the last rename wins); a run killed there left
// the same. Anything else makes the directory someone's.
func emptyButTagWrites(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for {
		names, err := f.Readdirnames(8)
		for _, n := range names {
			if !matchesAny(n, rootTempPatterns) {
				return false, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}
