// Package cache owns mlxbuild's cache directory: where each backend's tree,
// build directory, outputs, stamp, manifest, lock and log live; the stamp of
// every input of a backend's last successful build and the explanation of
// what changed since; the per-backend lock; and purging and cleaning. It never
// copies source files (package overlays does).
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package cache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// Layout is where one backend's files live under the cache root. A rocm and a
// cpu build never share a tree or a build directory because each backend has
// its own Dir.
type Layout struct {
	root string // the cache root (shared by every backend)
	// Discovery holds cached toolchain and tool discovery (backends.memo)
	// and the kept check of a source.dir (overlays), shared by every backend.
	Discovery string
	backend   string // one of configs.Names
	Dir       string // Root/Backend
	Tree      string // pristine + overlay, the only source CMake sees
	Build     string // the CMake build directory
	Out       string // the link plan and other outputs
	Stamp     string // inputs of the last successful build (JSON)
	Manifest  string // the tree's manifest, written by overlays.Materialize
	// Declared records the tree's FetchContent declarations under the
	// manifest's identity (deps.DeclaredCached).
	Declared string
	Lock     string // the per-backend lock file
	Log      string // the last build's log
	// Relink's mtime is when the archives or the link plan last changed:
	// the one output cargo.txt names as rerun-if-changed (flow.markRelink).
	Relink string
	owner  string // the project the directory belongs to (see claimOwner)
	// HIPPrefix is the small prefix that makes Debian's HIP layout
	// usable by CMake (the ROCm toolchain's CMakeSetup in backends).
	HIPPrefix string
	// DepsProvider is the CMake dependency provider internal/deps
	// generates for the build (CMAKE_PROJECT_TOP_LEVEL_INCLUDES).
	DepsProvider string
	// Launch is the CMake file that puts the compiler launcher in front
	// of a HIP build's custom commands (internal/flow's launchScript).
	Launch string
	// launcher is internal/compilecache's copy of the mlxbuild binary
	// that runs those commands (named here as compilecache names it:
	// cache imports no launcher), known so that Clean removes it.
	launcher string
	// Composed is the overlay composed from the backend's layers
	// (overlays.Compose), when the project declares layers.
	Composed string
	// Durations is the record of the edges' durations of the last builds
	// (internal/cmake's Record): it outlives a configure from scratch,
	// which empties Build and its .ninja_log.
	Durations string
	// DepsLock is deps:lock's scratch configure (its capture provider and
	// build directory, removed after it), and DepsLock+".log" its log.
	DepsLock string
}

// For returns the layout of backend under root. It only computes paths.
func For(root, backend string) Layout {
	dir := filepath.Join(root, backend)
	return Layout{
		root:      root,
		Discovery: filepath.Join(root, discoveryEntry),
		backend:   backend,
		Dir:       dir,
		Tree:      filepath.Join(dir, "tree"),
		Build:     filepath.Join(dir, "build"),
		Out:       filepath.Join(dir, "out"),
		Stamp:     filepath.Join(dir, "stamp.json"),
		Manifest:  filepath.Join(dir, "tree.manifest"),
		Declared:  filepath.Join(dir, "tree.declared"),
		Lock:      filepath.Join(dir, "lock"),
		Log:       filepath.Join(dir, "build.log"),
		Relink:    filepath.Join(dir, "relink"),
		owner:     filepath.Join(dir, "project"),

		HIPPrefix:    filepath.Join(dir, "hip-prefix"),
		DepsProvider: filepath.Join(dir, "deps-provider.cmake"),
		Launch:       filepath.Join(dir, "launch.cmake"),
		launcher:     filepath.Join(dir, "mlxbuild-launch"),
		Composed:     filepath.Join(dir, "overlay"),
		Durations:    filepath.Join(dir, "edge-durations.txt"),
		DepsLock:     filepath.Join(dir, "deps-lock"),
	}
}

// Prepare makes the root mlxbuild's cache (see EnsureRoot), checks the
// backend's folders (CheckFolders) and creates the backend's directory, so
// that Lock and the writers below can work. project
// is the directory of the project file the build is for: the backend's
// directory records it, and a directory another project recorded is
// refused (see claimOwner).
func Prepare(l Layout, project string) error {
	if err := PrepareFolders(l); err != nil {
		return err
	}
	return claimOwner(l, project)
}

// PrepareFolders is Prepare without recording the owner: what must exist
// before the backend's lock can be taken. The owner record is then
// written under the lock (ClaimOwner), since a run that holds the lock
// sweeps the temporary files of the owner record's atomic write.
func PrepareFolders(l Layout) error {
	if err := checkBackend(l.backend); err != nil {
		return err
	}
	if err := EnsureRoot(l.root); err != nil {
		return err
	}
	if err := l.CheckFolders(); err != nil {
		return err
	}
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		return fmt.Errorf("cache: creating %s: %w; set MLXBUILD_CACHE (or cache: in mlxbuild.yaml) to a writable directory", l.Dir, err)
	}
	return nil
}

// ClaimOwner records project as the owner of l.Dir, or refuses when
// another project is (see claimOwner). The caller holds l's lock.
func ClaimOwner(l Layout, project string) error { return claimOwner(l, project) }

// paths are every path of the layout under Dir, the lock included: what
// Clean knows as mlxbuild's. A file or folder a build writes in Dir and
// this list lacks is left by Clean and named as not mlxbuild's.
func (l Layout) paths() []string {
	return []string{l.Tree, l.Build, l.Out, l.Stamp, l.Manifest, l.Declared, l.Lock, l.Log, l.Log + ".configure", l.Relink, l.owner, l.HIPPrefix, l.DepsProvider, l.Launch, l.launcher, l.Composed, l.Durations, l.DepsLock, l.DepsLock + ".log"}
}

// checkBackend refuses names that would put a backend's directory anywhere
// but directly under the root.
func checkBackend(b string) error {
	if b == "" || b == "." || b == ".." || strings.ContainsAny(b, `/\`) || strings.HasPrefix(b, ".") {
		// configs (which imports cache) validated every name a user
		// gives before it gets here: this guards the Go API only.
		return fmt.Errorf("cache: backend name %q is not a plain name; use a backend's name (configs.Names)", b)
	}
	return nil
}

// atomicWrite replaces a cache file (temporary file, fsync, rename) so a
// reader sees the old or the new file, never a torn one; what names it in
// errors. Temporary files are named .tmp-<base>-* so a later run knows its
// own leftovers.
func atomicWrite(what, path string, data []byte) error {
	return atomicfile.Options{Perm: 0o644, What: what, TempPattern: ".tmp-" + filepath.Base(path) + "-*"}.Write(path, data)
}
