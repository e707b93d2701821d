package cmakecache

import (
	"maps"
	"os"
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

func sameFile(a, b string) bool {
	ai, err := os.Stat(a)
	if err != nil {
		return false
	}
	bi, err := os.Stat(b)
	return err == nil && os.SameFile(ai, bi)
}
