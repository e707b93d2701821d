package deps

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// declaredHeader starts a file of recorded declarations; a new format gets
// a new header, so an older mlxbuild's file is read as absent.
const declaredHeader = "mlxbuild declared 2"

// DeclaredCached is Declared(tree) for a tree whose every change comes with
// a new key: the caller passes the identity of the tree's manifest, which
// overlays.Materialize rewrites (atomically, so with a new inode) whenever it
// writes, restores or removes a tree file or a tree file's stat data changed.
// The names are recorded in file with the tree and the key, and reused while
// both are the same, so a no-op build does not read every CMake file of the
// tree again. An empty key reuses nothing. Failing to record only costs the
// next run a scan, so it is not an error.
func DeclaredCached(tree, file, key string) (map[string]bool, error) {
	keyLine := strconv.Quote(tree) + " " + key
	if key != "" {
		if data, err := os.ReadFile(file); err == nil {
			if names, ok := parseDeclared(data, keyLine); ok {
				return names, nil
			}
		}
	}
	names, err := Declared(tree)
	if err != nil || key == "" {
		return names, err
	}
	_, _ = atomicfile.WriteIfChanged(file, formatDeclared(keyLine, names), 0o644)
	return names, nil
}

// formatDeclared is the recorded form: the header, the key line, then one
// name a line, sorted.
func formatDeclared(keyLine string, names map[string]bool) []byte {
	var b strings.Builder
	b.WriteString(declaredHeader + "\n" + keyLine + "\n")
	for _, n := range slices.Sorted(maps.Keys(names)) {
		b.WriteString(n + "\n")
	}
	return []byte(b.String())
}

// parseDeclared reads a recorded form made for keyLine. Anything else (an
// older format, another key, a name Declared cannot return, a torn file)
// is not ok, and the caller scans the tree.
func parseDeclared(data []byte, keyLine string) (map[string]bool, bool) {
	s := string(data)
	if !strings.HasSuffix(s, "\n") {
		return nil, false
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) < 2 || lines[0] != declaredHeader || lines[1] != keyLine {
		return nil, false
	}
	names := make(map[string]bool, len(lines)-2)
	for _, n := range lines[2:] {
		if !declaredName(n) {
			return nil, false
		}
		names[n] = true
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
