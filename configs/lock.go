package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lockFileName is the lock file deps:lock writes beside the project file.
//
// Why a file of its own rather than entries in the spec override: what
// deps:lock writes is machine-made (commit and sha256 that nobody should
// type) and rewritten on every pin bump, while the spec override is the
// user's, with comments and order a rewrite of YAML would lose. One line a
// dependency keeps a bump's diff to the lines that moved, and every field
// has a line and column for errors.
const lockFileName = "mlxbuild.lock"

// lockHeader is the first line that is not a comment: a new format gets a
// new header, and an older mlxbuild refuses it by name.
const lockHeader = "mlxbuild-lock 1"

// LockEntry is one locked dependency: what the tree's FetchContent asks
// for, resolved (the tag's commit, the hash of what the cache stores).
type LockEntry struct {
	Name   string
	URL    string
	Git    string
	Tag    string
	Commit string
	SHA256 string
	// Pos is where the entry starts; fieldPos where each key starts.
	Pos      Pos
	fieldPos map[string]Pos
	// Line is the entry's line as read, kept so a rewrite leaves an entry
	// that did not move byte for byte as it was.
	Line int
}

// lockKeys are the keys an entry may hold, in the order they are written.
var lockKeys = []string{"git", "url", "tag", "commit", "sha256"}

// LockPath is the project's lock file.
func (c *Config) LockPath() string { return filepath.Join(c.Project.Dir, lockFileName) }

// ReadLock reads the project's lock file; a missing one is empty.
func ReadLock(path string) ([]LockEntry, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the lock file %s: %w", path, err)
	}
	return parseLock(path, data)
}

// parseLock reads a lock file: comments (#) and blank lines, the header,
// then one entry a line: a name and key=value fields. Every problem is
// named with file:line:col.
func parseLock(file string, data []byte) ([]LockEntry, error) {
	var ps problems
	var out []LockEntry
	seen := map[string]int{}
	header := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		col := len(line) - len(trimmed) + 1
		at := Pos{File: file, Line: n, Col: col}
		if !header {
			if strings.TrimSpace(trimmed) != lockHeader {
				ps.add(at, "the lock file must start with %q (after comments); this mlxbuild cannot read %q: run deps:lock again", lockHeader, short(strings.TrimSpace(trimmed)))
				break
			}
			header = true
			continue
		}
		e, ok := parseLockLine(file, n, line, &ps)
		if !ok {
			continue
		}
		if first, dup := seen[strings.ToLower(e.Name)]; dup {
			ps.add(e.Pos, "dependency %s is locked twice (first on line %d); keep one", e.Name, first)
			continue
		}
		seen[strings.ToLower(e.Name)] = n
		out = append(out, e)
	}
	if !header && len(ps.list) == 0 && strings.TrimSpace(string(data)) != "" {
		ps.add(Pos{File: file, Line: 1, Col: 1}, "the lock file has no %q line: run deps:lock again", lockHeader)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// parseLockLine reads one entry: fields split on blanks, so no value may
// hold one (URLs do not).
func parseLockLine(file string, n int, line string, ps *problems) (LockEntry, bool) {
	e := LockEntry{fieldPos: map[string]Pos{}, Line: n}
	before := len(ps.list)
	for _, f := range fields(line) {
		at := Pos{File: file, Line: n, Col: f.col}
		if e.Name == "" {
			e.Name, e.Pos = f.text, at
			if !depName.MatchString(f.text) {
				ps.add(at, "dependency name %q: give the name used in FetchContent_Declare", short(f.text))
			}
			continue
		}
		key, value, ok := strings.Cut(f.text, "=")
		if !ok || value == "" {
			ps.add(at, "%q is not key=value (keys: %s)", short(f.text), strings.Join(lockKeys, ", "))
			continue
		}
		if !containsStr(lockKeys, key) {
			ps.add(at, "unknown key %q (keys: %s)", short(key), strings.Join(lockKeys, ", "))
			continue
		}
		if _, dup := e.fieldPos[key]; dup {
			ps.add(at, "%s is given twice", key)
			continue
		}
		e.fieldPos[key] = at
		switch key {
		case "git":
			e.Git = value
		case "url":
			e.URL = value
			checkURL(ps, at, value)
		case "tag":
			e.Tag = value
		case "commit":
			e.Commit = value
			if !lowerHex(value, 40) {
				ps.add(at, "commit %q must be the full 40-hex commit", short(value))
			}
		case "sha256":
			e.SHA256 = value
			if !lowerHex(value, 64) {
				ps.add(at, "sha256 %q must be 64 lowercase hex digits", short(value))
			}
		}
	}
	if len(ps.list) > before {
		return e, false
	}
	switch {
	case e.Git != "" && e.URL != "":
		ps.add(e.fieldPos["url"], "%s has both git and url; keep one", e.Name)
	case e.Git == "" && e.URL == "":
		ps.add(e.Pos, "%s needs git=REPOSITORY (with commit) or url=ARCHIVE", e.Name)
	case e.Git != "" && e.Commit == "":
		ps.add(e.Pos, "%s needs commit=<40 hex>: a tag can move", e.Name)
	case e.URL != "" && (e.Tag != "" || e.Commit != ""):
		ps.add(e.fieldPos["url"], "tag and commit belong to a git dependency, not to url")
	}
	if e.SHA256 == "" {
		ps.add(e.Pos, "%s needs sha256=<64 hex>: the cache keeps only what it verified", e.Name)
	}
	return e, len(ps.list) == before
}

type field struct {
	text string
	col  int
}

// fields splits a line on blanks, keeping each field's 1-based column.
func fields(line string) []field {
	var out []field
	start := -1
	for i := 0; i <= len(line); i++ {
		blank := i == len(line) || line[i] == ' ' || line[i] == '\t'
		if blank && start >= 0 {
			out = append(out, field{line[start:i], start + 1})
			start = -1
		} else if !blank && start < 0 {
			start = i
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Format is the entry's line, as deps:lock writes it.
func (e LockEntry) Format() string {
	var b strings.Builder
	b.WriteString(e.Name)
	for _, k := range lockKeys {
		v := map[string]string{"git": e.Git, "url": e.URL, "tag": e.Tag, "commit": e.Commit, "sha256": e.SHA256}[k]
		if v != "" {
			b.WriteString(" " + k + "=" + v)
		}
	}
	return b.String()
}

// NewLockFile is the text of a lock file with no entries yet.
func NewLockFile() string {
	return "# Written by `go run mage.go deps:lock`: the FetchContent dependencies the\n" +
		"# tree asks for, each pinned to a commit and the sha256 of what the cache\n" +
		"# stores. Run deps:lock again after a pin bump; see docs/specs.md.\n" +
		lockHeader + "\n"
}

// applyLock puts the lock's entries over the spec's dependencies: an entry
// replaces the source (url or git, tag, commit, sha256) of the dependency
// of its name, keeping its providers, paths and layout, or is added with
// the cache provider. The lock's position becomes the origin, so errors
// point at the line that pins it.
func applyLock(s *Spec, lock []LockEntry) {
	for _, e := range lock {
		found := false
		for i := range s.Dependencies {
			d := &s.Dependencies[i]
			if !strings.EqualFold(d.Name, e.Name) {
				continue
			}
			found = true
			d.URL, d.Git, d.Tag, d.Commit, d.SHA256 = e.URL, e.Git, e.Tag, e.Commit, e.SHA256
			if e.URL != "" {
				d.Paths, d.Layout = nil, nil // a git archive's shaping
			}
			d.Origin, d.Pos = e.Pos.String(), e.Pos
			if !containsStr(d.Providers, "cache") {
				d.Providers = append(append([]string(nil), d.Providers...), "cache")
			}
		}
		if !found {
			s.Dependencies = append(s.Dependencies, Dependency{Pos: e.Pos, Name: e.Name, URL: e.URL, Git: e.Git, Tag: e.Tag,
				Commit: e.Commit, SHA256: e.SHA256, Providers: []string{"cache"}, Origin: e.Pos.String(), Base: filepath.Dir(e.Pos.File)})
		}
	}
}
