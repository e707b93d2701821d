package backends

import (
	"os"
	"path/filepath"
)

// LibLookup answers the link plan's existence checks for one run. A build
// makes its link plan twice (the toolchain check before the lock, the plan
// after Ninja), so each path is looked at once and the answer kept for the
// run; a new run makes a new LibLookup and looks again.
//
// It also holds the system linker's default directories, for the check of
// system libraries: fixed directories, then glob patterns that are listed
// only when a library is in none of the directories before them. Whether a
// library exists in a list of directories does not depend on their order
// (the plan names libraries, not where they were found), so listing the
// patterns late changes no answer; a no-op build whose libraries are all
// in fixed or early directories lists none of the large ones.
type LibLookup struct {
	systemFixed, systemGlobs []string
	listed                   [][]string // matches of systemGlobs[i], for i < len(listed)
	exists                   map[string]bool
}

// NewLibLookup makes a run's lookup with the system's fixed library
// directories and glob patterns, the patterns in the order to list them.
func NewLibLookup(systemFixed, systemGlobs []string) *LibLookup {
	return &LibLookup{systemFixed: systemFixed, systemGlobs: systemGlobs, exists: map[string]bool{}}
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

// inDirs reports whether lib<name> is in one of dirs.
func (l *LibLookup) inDirs(dirs []string, name string) bool {
	files := sharedNames(name)
	for _, d := range dirs {
		for _, f := range files {
			if l.exist(filepath.Join(d, f)) {
				return true
			}
		}
	}
	return false
}

// inSystem reports whether lib<name> is in search or in one of the
// system's directories, listing each glob pattern only when the
// directories before it lack the library.
func (l *LibLookup) inSystem(search []string, name string) bool {
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
