package cmakecache

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mismatch is a variable a cache does not hold as it was set: Have is its
// value there, Absent when the cache has no such entry.
type Mismatch struct {
	Name, Want, Have string
	Absent           bool
}

// dirEntries are the entries CMake itself compares with the directories it
// is given as the same file, not as the same text (cmSystemTools::SameFile).
var dirEntries = []string{"CMAKE_HOME_DIRECTORY", "CMAKE_CACHEFILE_DIR"}

// Compare lists, in name order, each variable of expect (name, without a
// :TYPE suffix, to the value set) the cache does not hold as set (Same).
func (c *Cache) Compare(expect map[string]string) []Mismatch {
	var out []Mismatch
	for _, name := range slices.Sorted(maps.Keys(expect)) {
		want := expect[name]
		e, ok := c.Get(name)
		switch {
		case !ok:
			out = append(out, Mismatch{Name: name, Want: want, Absent: true})
		case Same(want, e.Value):
		case slices.Contains(dirEntries, name) && sameFile(want, e.Value):
		case (e.Type == "PATH" || e.Type == "FILEPATH") && madeAbsolute(want, e.Value):
		default:
			out = append(out, Mismatch{Name: name, Want: want, Have: e.Value})
		}
	}
	return out
}

// Name strips a define's :TYPE suffix (KEY:BOOL) to the entry's name.
func Name(define string) string {
	name, _, _ := strings.Cut(define, ":")
	return name
}

// madeAbsolute reports whether have is want with each relative path of
// the list made absolute against the working directory, as CMake does to
// a -D value a project then declares a PATH or FILEPATH cache entry.
func madeAbsolute(want, have string) bool {
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	ws, hs := strings.Split(want, ";"), strings.Split(have, ";")
	if len(ws) != len(hs) {
		return false
	}
	for i, w := range ws {
		if w != hs[i] && (filepath.IsAbs(w) || filepath.Join(wd, w) != hs[i]) {
			return false
		}
	}
	return true
}

func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
