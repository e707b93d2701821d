package backends

import (
	"maps"
	"os"
	"path/filepath"
	"slices"

	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
)

// LibLookup answers the link plan's existence checks for one run. A build
// makes its link plan twice (the toolchain check before the lock, the plan
// after Ninja), so each path is looked at once and the answer kept for the
// run; a new run makes a new LibLookup and looks again.
//
// It also holds the system linker's default directories, for the check of
// system libraries: fixed directories, then glob patterns that are listed
// only when a library is in none of the directories before them.
//
// Whether a library exists in a list of directories does not depend on
// their order (the plan names libraries, not where they were found), so
// the lookup may look anywhere first: in the directory where the last run
// found the library (its hint, kept in the discovery cache), then, when it
// is not there, everywhere in order. A no-op build whose libraries stayed
// put stats one file per library and lists no pattern. A hint is only an
// order: one for a directory the list does not hold is not followed.
type LibLookup struct {
	systemFixed, systemGlobs []string
	listed                   [][]string // matches of systemGlobs[i], for i < len(listed)
	exists                   map[string]bool
	hints                    memo              // where hints are kept ("" dir: none)
	hinted                   map[string]string // library name -> directory, from the last run
	found                    map[string]string // library name -> directory, this run
}

// libHintsKey names the hints' file in the discovery cache.
const libHintsKey = "libdirs"

// libHintsKind names the hints' entry (internal/memo): its values are
// library names and directories, and it stands on nothing (a hint only
// orders the search, so a stale one costs a look, never an answer).
const libHintsKind = "libdirs"

// NewLibLookup makes a run's lookup with the system's fixed library
// directories and glob patterns, the patterns in the order to list them,
// and the discovery cache that keeps the hints ("" keeps none).
func NewLibLookup(systemFixed, systemGlobs []string, cacheDir string) *LibLookup {
	l := &LibLookup{systemFixed: systemFixed, systemGlobs: systemGlobs, exists: map[string]bool{}, hints: memo{dir: cacheDir}, found: map[string]string{}}
	if cacheDir != "" {
		l.hinted, _ = imemo.Get(l.hints.path(libHintsKey), libHintsKind, nil, os.Getenv, libHints)
	}
	return l
}

// SaveHints keeps where this run found each library for the next run,
// when that changed. Call it once the link plan has been made.
func (l *LibLookup) SaveHints() {
	if l == nil || l.hints.dir == "" || len(l.found) == 0 {
		return
	}
	merged := map[string]string{}
	for k, v := range l.hinted {
		merged[k] = v
	}
	changed := false
	for k, v := range l.found {
		changed = changed || merged[k] != v
		merged[k] = v
	}
	if changed {
		l.hints.write(libHintsKey, libHintsKind, imemo.Entry{Values: libHintValues(merged)})
	}
}

// libHintValues is hints as the entry's values, in name order.
func libHintValues(hints map[string]string) [][2]string {
	var out [][2]string
	for _, name := range slices.Sorted(maps.Keys(hints)) {
		out = append(out, [2]string{name, hints[name]})
	}
	return out
}

// libHints is the hints an entry's values hold.
func libHints(values [][2]string) (map[string]string, bool) {
	hints := make(map[string]string, len(values))
	for _, kv := range values {
		hints[kv[0]] = kv[1]
	}
	return hints, true
}

// sharedNames are the files that satisfy a link by -l<name>: a versioned
// lib<name>.so.N cannot, so only the unversioned one counts.
func sharedNames(name string) [3]string {
	return [3]string{"lib" + name + ".so", "lib" + name + ".dylib", "lib" + name + ".a"}
}

// exist reports whether path exists (following links), asking the file
// system once per run. A nil LibLookup asks every time.
func (l *LibLookup) exist(path string) bool {
	if l == nil {
		_, err := os.Stat(path)
		return err == nil
	}
	ok, seen := l.exists[path]
	if !seen {
		_, err := os.Stat(path)
		ok = err == nil
		l.exists[path] = ok
	}
	return ok
}

// inDir reports whether lib<name> is in dir, noting where it was found.
func (l *LibLookup) inDir(dir, name string) bool {
	for _, f := range sharedNames(name) {
		if l.exist(filepath.Join(dir, f)) {
			if l != nil {
				l.found[name] = dir
			}
			return true
		}
	}
	return false
}

// hint is the directory to look in first for lib<name> ("" none).
func (l *LibLookup) hint(name string) string {
	if l == nil {
		return ""
	}
	return l.hinted[name]
}

// inDirs reports whether lib<name> is in one of dirs: first the hinted
// directory when dirs holds it, then every one in order.
func (l *LibLookup) inDirs(dirs []string, name string) bool {
	if h := l.hint(name); h != "" && slices.Contains(dirs, h) && l.inDir(h, name) {
		return true
	}
	for _, d := range dirs {
		if l.inDir(d, name) {
			return true
		}
	}
	return false
}

// inSystem reports whether lib<name> is in search or in one of the
// system's directories, listing each glob pattern only when the
// directories before it lack the library.
func (l *LibLookup) inSystem(search []string, name string) bool {
	if h := l.hint(name); h != "" && l.systemHolds(search, h) && l.inDir(h, name) {
		return true
	}
	if l.inDirs(search, name) || l.inDirs(l.systemFixed, name) {
		return true
	}
	for i := range l.systemGlobs {
		if i == len(l.listed) {
			m, _ := filepath.Glob(l.systemGlobs[i])
			l.listed = append(l.listed, m)
		}
		if l.inDirs(l.listed[i], name) {
			return true
		}
	}
	return false
}

// systemHolds reports whether dir is one of the directories inSystem
// searches, without listing a pattern: search and the fixed directories
// hold it, or it is a clean path one of the patterns matches. A matching
// directory that holds the library is one the pattern lists (the glob
// lists every existing entry whose path matches), and one that does not
// hold it is not looked in further.
func (l *LibLookup) systemHolds(search []string, dir string) bool {
	if slices.Contains(search, dir) || slices.Contains(l.systemFixed, dir) {
		return true
	}
	if filepath.Clean(dir) != dir {
		return false
	}
	for _, g := range l.systemGlobs {
		if ok, _ := filepath.Match(g, dir); ok {
			return true
		}
	}
	return false
}
