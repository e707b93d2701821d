package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// busyWait is how long Clean waits for a backend's lock before it reports the
// backend as busy instead of deleting a tree under a running build.
const busyWait = 200 * time.Millisecond

// Clean removes one backend's directory under root, or with backend "" every
// entry of root (the shared pristine sources included). It takes each
// backend's lock first, so a running build is reported, not broken. It
// refuses a backend name that is not a plain name, and refuses to empty a
// root that has no CACHEDIR.TAG (one that mlxbuild did not make), so a
// mistyped cache path cannot delete a project.
func Clean(root string, backend string) error {
	if root == "" {
		return errors.New("cache: clean: the cache root is empty; set MLXBUILD_CACHE or cache: in mlxbuild.yaml")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("cache: clean %s: %w", root, err)
	}
	if abs == filepath.Dir(abs) {
		return fmt.Errorf("cache: clean: refusing to clean the file system root %s; set MLXBUILD_CACHE to mlxbuild's own directory", abs)
	}
	if backend != "" {
		if err := checkBackend(backend); err != nil {
			return err
		}
		return cleanBackend(For(abs, backend))
	}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(filepath.Join(abs, tagName)); err != nil {
		return fmt.Errorf("cache: clean: %s has no %s, so mlxbuild did not make it; refusing to empty it (check MLXBUILD_CACHE, or remove it by hand)", abs, tagName)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return fmt.Errorf("cache: clean: reading %s: %w", abs, err)
	}
	for _, e := range entries {
		if e.Name() == tagName {
			continue
		}
		if e.IsDir() && checkBackend(e.Name()) == nil {
			if _, err := os.Stat(filepath.Join(abs, e.Name(), "lock")); err == nil {
				if err := cleanBackend(For(abs, e.Name())); err != nil {
					return err
				}
				continue
			}
		}
		if err := removeInside(abs, filepath.Join(abs, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// cleanBackend removes l.Dir while holding the backend's lock, leaving the
// lock file itself (see Lock) and nothing else.
func cleanBackend(l Layout) error {
	if _, err := os.Stat(l.Dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), busyWait)
	defer cancel()
	holder := 0
	unlock, err := Lock(ctx, l.Lock, func(pid int) { holder = pid })
	if err != nil {
		return fmt.Errorf("cache: clean %s: a build (pid %d) holds %s; wait for it to finish or stop it, then clean again", l.Backend, holder, l.Lock)
	}
	defer unlock()
	entries, err := os.ReadDir(l.Dir)
	if err != nil {
		return fmt.Errorf("cache: clean %s: reading %s: %w", l.Backend, l.Dir, err)
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(l.Lock) {
			continue
		}
		if err := removeInside(l.Root, filepath.Join(l.Dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// removeInside removes path, which must lie strictly inside root.
func removeInside(root, path string) error {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("cache: refusing to remove %s: it is not inside the cache root %s", path, root)
	}
	if err := os.RemoveAll(path); err != nil {
		return fmt.Errorf("cache: removing %s: %w; check permissions (a read-only file inside needs `chmod -R u+w`)", path, err)
	}
	return nil
}

// PurgeForPin removes what depended on the old pin when the pin changes: the
// build directory, the tree and its manifest, and the outputs, so a partial
// pin bump can never link the old MLX while reporting the new one. The stamp
// stays (it still names the old pin, so the next plan says why it rebuilds).
// Equal pins, or no old pin, purge nothing.
func PurgeForPin(l Layout, oldPin, newPin string) error {
	if oldPin == "" || oldPin == newPin {
		return nil
	}
	for _, p := range []string{l.Build, l.Tree, l.Manifest, l.Out} {
		if err := removeInside(l.Root, p); err != nil {
			return fmt.Errorf("cache: purging %s after the pin changed from %s to %s: %w", l.Backend, oldPin, newPin, err)
		}
	}
	return nil
}
