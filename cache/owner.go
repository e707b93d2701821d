package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// ownerError says that a backend's cache directory belongs to another
// project. Two projects sharing one MLXBUILD_CACHE would otherwise build
// into the same tree and each link the other's archives.
type ownerError struct {
	dir, owner, project string
}

func (e *ownerError) Error() string {
	return fmt.Sprintf("cache: %s belongs to the project in %s, not to %s: projects must not share a cache directory "+
		"(they would link each other's builds); give this project its own MLXBUILD_CACHE (or cache: in its mlxbuild.yaml), "+
		"or, if the project moved from there, run cache:clean -backend=%s first",
		e.dir, e.owner, e.project, filepath.Base(e.dir))
}

// Kind is Config: a shared cache root is a configuration mistake.
func (e *ownerError) Kind() fail.Kind { return fail.Config }

// claimOwner records project (resolved, so a symlinked checkout is the same
// project) as the owner of l.Dir, or refuses when another project already
// is. Refusing, rather than a directory per project under the root, keeps
// the layout's paths what the docs and the consumers' build scripts name; the
// shared part of a cache (the pristine sources under src/, keyed by pin) is
// not owned and stays shared. A directory from before owners were recorded
// is claimed by the first project that builds in it. An empty project skips
// the check (a caller that builds for no project file).
func claimOwner(l Layout, project string) error {
	if project == "" {
		return nil
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	old, err := os.ReadFile(l.owner)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && inside(abs, l.Dir):
		// A cache inside the project can only be its own: after the
		// project moved, the record names where it was.
		if string(old) == abs+"\n" {
			return nil
		}
		return atomicWrite("owner record", l.owner, []byte(abs+"\n"))
	case err != nil:
		return fmt.Errorf("cache: reading %s: %w", l.owner, err)
	}
	if owner := strings.TrimSuffix(string(old), "\n"); owner != abs {
		return &ownerError{dir: l.Dir, owner: owner, project: abs}
	}
	return nil
}

// inside says whether path lies strictly inside dir; both are absolute. The
// symlinks of path's existing part are resolved first.
func inside(dir, path string) bool {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// OwnedBy says whether root is an mlxbuild cache that holds a build of
// project's: it carries mlxbuild's tag, a backend directory of it records
// project as its owner, and none records another. It only reads; a
// build script looks for the project's existing cache with it (see
// configs' defaultCacheRoot).
func OwnedBy(root, project string) bool {
	if !tagged(root) {
		return false
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return false
	}
	owned := false
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(For(root, e.Name()).owner)
		if err != nil {
			continue
		}
		if strings.TrimSuffix(string(b), "\n") != abs {
			return false
		}
		owned = true
	}
	return owned
}
