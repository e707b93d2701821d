// Package cmakecache reads a build directory's CMakeCache.txt the way CMake
// does, so mlxbuild can check what a configure really left there: a define
// CMake dropped (it deletes its cache when a compiler changes) or a backend
// switch the project turned off reads as what it is.
package cmakecache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// FileName is the cache's name inside a build directory.
const FileName = "CMakeCache.txt"

// Entry is one cache entry: NAME:TYPE=VALUE.
type Entry struct {
	Name, Type, Value string
	Line              int // 1-based line of the entry in the file
}

// Cache is a parsed CMakeCache.txt: its entries by name. The properties
// CMake keeps beside an entry as entries of their own (NAME-ADVANCED,
// NAME-MODIFIED, NAME-STRINGS, all INTERNAL) are not entries: CMake reads
// them as properties of NAME.
type Cache struct {
	Path    string
	entries map[string]Entry
}

// Get is the entry named name.
func (c *Cache) Get(name string) (Entry, bool) {
	if c == nil {
		return Entry{}, false
	}
	e, ok := c.entries[name]
	return e, ok
}

// Len is the number of entries.
func (c *Cache) Len() int {
	if c == nil {
		return 0
	}
	return len(c.entries)
}

// Read parses buildDir's CMakeCache.txt; none there is nil, nil.
func Read(buildDir string) (*Cache, error) {
	path := filepath.Join(buildDir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w; check its permissions", path, err)
	}
	return Parse(path, data)
}

// propertySuffixes name the INTERNAL entries that are properties of
// another entry (cmCacheManager::ReadPropertyEntry).
var propertySuffixes = []string{"-ADVANCED", "-MODIFIED", "-STRINGS"}

// Parse reads a cache's text (path names it in errors). Lines are
// `NAME:TYPE=VALUE`, `"NAME":TYPE=VALUE` (a name CMake quotes), or without
// a type `NAME=VALUE`; blank lines and lines starting with `#` or `//`
// (help text) are skipped, as is leading white space; trailing white space
// of a value is dropped unless the value is in single quotes, which are
// removed. A later entry of a name replaces an earlier one, as in CMake.
// A line CMake could not parse is an error naming path:line:col.
func Parse(path string, data []byte) (*Cache, error) {
	c := &Cache{Path: path, entries: map[string]Entry{}}
	line := 0
	for len(data) > 0 {
		line++
		var raw []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			raw, data = data[:i], data[i+1:]
		} else {
			raw, data = data, nil
		}
		text := string(raw)
		trimmed := strings.TrimLeft(text, " \t\r")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") {
			continue
		}
		col := len(text) - len(trimmed) + 1
		e, bad, ok := parseEntry(trimmed)
		if !ok {
			return nil, fmt.Errorf("%s: %s; the build directory's cache is damaged: run `mage cache:clean` or remove the build directory", fail.Pos{File: path, Line: line, Col: col + bad}, describe(trimmed))
		}
		e.Line = line
		if e.Type == "INTERNAL" && isProperty(e.Name) {
			continue
		}
		c.entries[e.Name] = e
	}
	return c, nil
}

func isProperty(name string) bool {
	for _, s := range propertySuffixes {
		if strings.HasSuffix(name, s) && len(name) > len(s) {
			return true
		}
	}
	return false
}

// describe says what is wrong with a line parseEntry refused.
func describe(s string) string {
	if !strings.Contains(s, "=") {
		return fmt.Sprintf("%q is no cache entry (NAME:TYPE=VALUE): it has no '='", clip(s))
	}
	return fmt.Sprintf("%q is no cache entry (NAME:TYPE=VALUE)", clip(s))
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// parseEntry reads one entry line (leading white space gone), as
// cmState::ParseCacheEntry does; when not ok, bad is the 0-based offset of
// what follows a quoted name that is no entry, else 0 (the whole line).
func parseEntry(s string) (e Entry, bad int, ok bool) {
	var name, rest string
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return e, 0, false
		}
		name, rest = s[1:1+end], s[2+end:]
		if !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "=") {
			return e, 2 + end, false
		}
	} else {
		i := strings.IndexAny(s, ":=")
		if i < 0 {
			return e, 0, false
		}
		name, rest = s[:i], s[i:]
	}
	typ := "UNINITIALIZED"
	if strings.HasPrefix(rest, ":") {
		t, v, found := strings.Cut(rest[1:], "=")
		if !found {
			return e, 0, false
		}
		typ, rest = t, "="+v
	}
	value := strings.TrimRight(rest[1:], " \t\r")
	if len(value) >= 2 && value[0] == '\'' && value[len(value)-1] == '\'' {
		value = value[1 : len(value)-1]
	}
	return Entry{Name: name, Type: typ, Value: value}, 0, true
}
