package deps

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// declaredKind names the entries of recorded declarations (internal/memo).
const declaredKind = "declared"

// DeclaredCached is Declared(tree) for a tree whose every change comes with
// a new key: the caller passes the identity of the tree's manifest, which
// overlays.Materialize rewrites (atomically, so with a new inode) whenever it
// writes, restores or removes a tree file or a tree file's stat data changed.
// The names are kept in file (an internal/memo entry keyed by the tree and
// the key, one `set "name"` value per name) and reused while both are the
// same, so a no-op build does not read every CMake file of the tree again.
// An empty key reuses nothing. Failing to record only costs the next run a
// scan, so it is not an error.
func DeclaredCached(tree, file, key string) (map[string]bool, error) {
	keys := [][2]string{{"tree", tree}, {"manifest", key}}
	if key != "" {
		if names, ok := memo.Get(file, declaredKind, keys, os.Getenv, declaredNames); ok {
			return names, nil
		}
	}
	names, err := Declared(tree)
	if err != nil || key == "" {
		return names, err
	}
	e := memo.Entry{Keys: keys}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		e.Values = append(e.Values, [2]string{"name", n})
	}
	memo.Store(file, declaredKind, e)
	return names, nil
}

// declaredNames is the names an entry's values hold; not ok for a value
// that is no name Declared returns (the caller scans the tree).
func declaredNames(values [][2]string) (map[string]bool, bool) {
	names := make(map[string]bool, len(values))
	for _, kv := range values {
		if kv[0] != "name" || !declaredName(kv[1]) {
			return nil, false
		}
		names[kv[1]] = true
	}
	return names, true
}

// declaredName reports whether n is a name Declared returns: declareRe's
// name, lower-cased.
func declaredName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_.+-", c) >= 0) {
			return false
		}
	}
	return true
}
