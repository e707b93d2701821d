package cache

import (
	"fmt"
	"os"
	"path/filepath"
)

// tempPatterns match what mlxbuild's own atomic writes leave in the
// backend's directory when they are killed: the temporary files of the
// stamp and the owner record (atomicWrite), of the tree manifest
// (overlays' manifest writer, which names them ".mlxbuild-tmp-manifest-*";
// cache cannot import overlays) and the staged generations and links of the
// out/ directory (atomicfile.ReplaceDir, ".out-*").
func (l Layout) tempPatterns() []string {
	return []string{
		".tmp-" + filepath.Base(l.Stamp) + "-*",
		".tmp-" + filepath.Base(l.owner) + "-*",
		".mlxbuild-tmp-manifest-*",
		".tmp-" + filepath.Base(l.Declared) + "-*", // internal/memo.Store's, from deps.DeclaredCached
		"." + filepath.Base(l.Out) + "-*",
		// atomicfile's default for internal/compilecache's copy of the
		// launcher (named here as it names it: cache imports no launcher).
		".mlxbuild-launch.tmp*",
		"." + filepath.Base(l.Durations) + ".tmp*", // atomicfile's default, from flow's duration record
	}
}

// RemoveStaleTemps removes the temporary files a killed run left in the
// backend's directory (see tempPatterns), the configure record's and the
// compilation database's in the build directory, and those in a plain out/ directory of an older layout
// (atomicfile's ".<name>.tmp*"), keeping the generation out/ points at. Only
// those patterns, only in those three directories: nothing else is touched. The caller holds the backend's lock, so no write of a
// running build is among them.
func RemoveStaleTemps(l Layout) ([]string, error) {
	current := ""
	if t, err := os.Readlink(l.Out); err == nil {
		current = filepath.Base(t)
	}
	var removed []string
	sweep := func(dir string, patterns []string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return fmt.Errorf("cache: reading %s: %w", dir, err)
		}
		for _, e := range entries {
			if e.Name() == current || !matchesAny(e.Name(), patterns) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if err := removeInside(l.root, p); err != nil {
				return err
			}
			removed = append(removed, p)
		}
		return nil
	}
	if err := sweep(l.Dir, l.tempPatterns()); err != nil {
		return removed, err
	}
	// The build directory: the configure record's, and internal/cmake's
	// completed compile_commands.json, its stamp and the no-work record (named here as
	// internal/cmake names them: cache does not import the CMake driver).
	if err := sweep(l.Build, []string{".tmp-" + ConfigureRecordFile + "-*", ".tmp-compile_commands.json-*", ".tmp-mlxbuild-compdb.stamp-*", ".tmp-mlxbuild-nowork-*", ".tmp-mlxbuild-cxxstd-*", ".tmp-mlxbuild-products-*"}); err != nil {
		return removed, err
	}
	if st, err := os.Lstat(l.Out); err == nil && st.IsDir() {
		if err := sweep(l.Out, []string{".cargo.txt.tmp*", ".ldflags.txt.tmp*", ".cxxflags.txt.tmp*", ".link.json.tmp*"}); err != nil {
			return removed, err
		}
	}
	return removed, nil
}
