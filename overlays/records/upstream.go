package records

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Field is one `key: value` line of UPSTREAM.
type Field struct {
	Key, Value string
	Line       int // 1-based
	Col        int // 1-based byte column of Value (of the line's end when Value is empty)
}

// Upstream is a parsed UPSTREAM file, its fields in file order.
type Upstream struct {
	Fields []Field
}

// Get returns the field named key and whether it exists.
func (u Upstream) Get(key string) (Field, bool) {
	for _, f := range u.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

var keyRE = lazyregexp.New(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// ParseUpstream reads UPSTREAM. It keeps the first of duplicated keys and
// reports every line it could not read as a Problem.
func ParseUpstream(data []byte) (Upstream, []Problem) {
	var u Upstream
	var probs []Problem
	seen := map[string]int{}
	for i, raw := range splitLines(data) {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok || !keyRE.MatchString(key) {
			probs = append(probs, Problem{Line: n,
				Message: fmt.Sprintf("%q is not a `key: value` line", clip(line)),
				Fix:     "write it as `key: value`, or start it with # to make it a comment"})
			continue
		}
		if first, dup := seen[key]; dup {
			probs = append(probs, Problem{Line: n,
				Message: fmt.Sprintf("key %q given again (first at line %d)", key, first),
				Fix:     "keep one line per key"})
			continue
		}
		seen[key] = n
		// The value starts after the line's indent, the key's colon and the
		// blanks after it.
		col := len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace)) + strings.Index(line, ":") + 1 +
			len(value) - len(strings.TrimLeftFunc(value, unicode.IsSpace)) + 1
		u.Fields = append(u.Fields, Field{Key: key, Value: strings.TrimSpace(value), Line: n, Col: col})
	}
	return u, probs
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
