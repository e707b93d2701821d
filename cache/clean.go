package cache

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// busyWait is how long Clean waits for a backend's lock before it reports the
// backend as busy instead of deleting a tree under a running build.
const busyWait = 200 * time.Millisecond

// rootEntries are the entries of the cache root that mlxbuild makes besides
// the backends' directories: the pristine sources and git mirrors
// (overlays.Pristine, forksync), fork sync's locks, overlay:apiDrift's
// builds, overlay:retarget's pre-images (forksync.PreimagesDir), the verified dependency store (internal/deps, deps:fetch) and
// the discovery memo every backend shares (Layout.Discovery).
var rootEntries = []string{"src", "sync", "apidrift", "retarget", depsEntry, discoveryEntry}

// discoveryEntry is the root's folder of cached toolchain and tool
// discovery (backends.memo); Layout.Discovery is its path.
const discoveryEntry = "discovery"

// depsEntry is the verified dependency store (internal/deps.StoreAt). Clean
// keeps it unless asked: refilling it takes the network or a mirror, so an
// offline machine that lost it could not build again (cargo clean keeps
// ~/.cargo/registry for the same reason).
const depsEntry = "deps"

// backendEntries are the entries of a backend's directory that mlxbuild
// makes besides the Layout's own paths: the compiler caches of
// internal/compilecache.
var backendEntries = []string{"ccache", "sccache"}

// rootTempPatterns match the temporary files of the root's own atomic
// writes (the tag).
var rootTempPatterns = []string{".tmp-" + tagName + "-*"}

// cleanResult says what Clean removed, what it kept on purpose (the
// dependency store, see CleanScope) and what it left because it is not
// mlxbuild's.
type cleanResult struct {
	removed []string
	Kept    []string
	Left    []string
}

// CleanScope says what Clean removes besides the backends' parts.
type CleanScope struct {
	Shared bool // the root's shared entries: pristine sources, git mirrors, sync locks, apiDrift's builds
	Deps   bool // with Shared, the verified dependency store too (deps/); without it, it is kept
}

// Clean removes what mlxbuild's layout names under root for each of
// backends (tree, build, out, stamp, manifest, log, ...; the lock file
// stays, see Lock), and with scope.Shared also the shared entries of the
// root (the pristine sources), the dependency store only with scope.Deps.
// It never removes an entry it does not know: those are listed in Left. It
// takes each backend's lock first, so a running build is reported, not
// broken, and it refuses a root without mlxbuild's CACHEDIR.TAG (one that
// mlxbuild did not make).
func Clean(root string, backends []string, scope CleanScope) (*cleanResult, error) {
	if root == "" {
		return nil, errors.New("cache: clean: the cache root is empty; set MLXBUILD_CACHE or cache: in mlxbuild.yaml")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("cache: clean %s: %w", root, err)
	}
	res := &cleanResult{}
	if _, err := os.Stat(abs); errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if !tagged(abs) {
		return nil, fmt.Errorf("cache: clean: %s has no %s of mlxbuild, so mlxbuild did not make it; refusing to clean it (check MLXBUILD_CACHE and cache: in mlxbuild.yaml)", abs, tagName)
	}
	// Every folder clean would read, lock or delete is checked before the
	// first is touched: a link planted anywhere stops the whole clean.
	o, err := rootIdentity(abs)
	if err != nil {
		return nil, err
	}
	if err := checkShared(o); err != nil {
		return nil, err
	}
	for _, b := range backends {
		if err := checkBackend(b); err != nil {
			return nil, err
		}
		if err := For(abs, b).CheckFolders(); err != nil {
			return nil, err
		}
	}
	for _, b := range backends {
		if err := cleanBackend(For(abs, b), res); err != nil {
			return res, err
		}
	}
	if !scope.Shared {
		return res, nil
	}
	known := map[string]bool{tagName: true}
	for _, n := range append(append([]string{}, rootEntries...), backends...) {
		known[n] = true
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return res, fmt.Errorf("cache: clean: reading %s: %w", abs, err)
	}
	for _, e := range entries {
		p := filepath.Join(abs, e.Name())
		switch {
		case matchesAny(e.Name(), rootTempPatterns):
			if err := removeInside(abs, p); err != nil {
				return res, err
			}
		case !known[e.Name()]:
			res.Left = append(res.Left, p)
		case e.Name() == depsEntry && !scope.Deps:
			res.Kept = append(res.Kept, p)
		case slices.Contains(rootEntries, e.Name()):
			if err := removeInside(abs, p); err != nil {
				return res, err
			}
			res.removed = append(res.removed, p)
		}
	}
	return res, nil
}

// cleanBackend removes what the layout names in l.Dir while holding the
// backend's lock, leaving the lock file itself (see Lock) and every entry it
// does not know.
func cleanBackend(l Layout, res *cleanResult) error {
	if _, err := os.Stat(l.Dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), busyWait)
	defer cancel()
	holder := 0
	unlock, err := Lock(ctx, l.Lock, func(pid int) { holder = pid })
	if err != nil {
		return fmt.Errorf("cache: clean %s: %s holds %s; wait for it to finish or stop it, then clean again", l.backend, Holder(holder), l.Lock)
	}
	defer unlock()
	known := map[string]bool{}
	for _, p := range l.paths() {
		known[filepath.Base(p)] = true
	}
	for _, n := range backendEntries {
		known[n] = true
	}
	entries, err := os.ReadDir(l.Dir)
	if err != nil {
		return fmt.Errorf("cache: clean %s: reading %s: %w", l.backend, l.Dir, err)
	}
	for _, e := range entries {
		p := filepath.Join(l.Dir, e.Name())
		switch {
		case e.Name() == filepath.Base(l.Lock):
		case known[e.Name()] || matchesAny(e.Name(), l.tempPatterns()):
			if err := removeInside(l.root, p); err != nil {
				return err
			}
			res.removed = append(res.removed, p)
		default:
			res.Left = append(res.Left, p)
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

func matchesAny(name string, patterns []string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
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
	purge := []string{l.Build, l.Tree, l.Manifest, l.Declared, l.Out}
	if gen, err := os.Readlink(l.Out); err == nil && matchesAny(gen, l.tempPatterns()) {
		purge = append(purge, filepath.Join(l.Dir, gen)) // the generation out/ points at
	}
	for _, p := range purge {
		if err := removeInside(l.root, p); err != nil {
			return fmt.Errorf("cache: purging %s after the pin changed from %s to %s: %w", l.backend, oldPin, newPin, err)
		}
	}
	return nil
}

// ClearBuild removes the backend's build directory, the one mlxbuild made
// under the cache root, so CMake configures into an empty one: a new
// compiler or toolchain makes CMake delete its cache and lose the command
// line's defines, and other first-configure inputs are never read again.
// The tree, the outputs and the stamp stay: the next plan still says why.
func ClearBuild(l Layout) error {
	if err := removeInside(l.root, l.Build); err != nil {
		return fmt.Errorf("cache: emptying the %s build directory: %w", l.backend, err)
	}
	return nil
}
