package verify

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays"
)

// walkFiles returns the regular files and symbolic links under root as
// sorted slash-separated paths relative to root. Version-control folders are
// skipped.
func walkFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// selectSources is selectFiles for the C++ source checks: include defaults
// to DefaultSourceGlobs, and a root that cannot be searched is the check's
// one finding, pointing at the check's root: key.
func selectSources(check, root string, include, exclude []string) ([]string, []Finding) {
	if len(include) == 0 {
		include = DefaultSourceGlobs
	}
	files, err := selectFiles(root, include, exclude)
	if err != nil {
		return nil, []Finding{{File: root, Message: fmt.Sprintf("cannot search: %v", err), Fix: "check the root: of the " + check + " check"}}
	}
	return files, nil
}

// selectFiles returns the files under root whose relative path matches one
// of include and none of exclude.
func selectFiles(root string, include, exclude []string) ([]string, error) {
	all, err := walkFiles(root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range all {
		if matchAny(include, f) && !matchAny(exclude, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// matchAny reports whether name matches one of the glob patterns.
func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if matchGlob(p, name) {
			return true
		}
	}
	return false
}

// matchGlob matches a slash-separated path against a pattern in which `**`
// (a whole segment) matches any number of segments, `{a,b}` either
// alternative, and every other segment follows path.Match. A pattern with no
// slash matches the base name at any depth, as .gitignore does.
func matchGlob(pattern, name string) bool {
	for _, p := range expandBraces(pattern) {
		if !strings.Contains(p, "/") {
			p = "**/" + p
		}
		if overlays.Match(p, name) {
			return true
		}
	}
	return false
}

// expandBraces turns "a.{h,cpp}" into ["a.h", "a.cpp"], innermost-first
// and without nesting limits beyond what patterns in a project file need.
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	closing := strings.IndexByte(p[open:], '}')
	if closing < 0 {
		return []string{p}
	}
	closing += open
	var out []string
	for _, alt := range strings.Split(p[open+1:closing], ",") {
		out = append(out, expandBraces(p[:open]+alt+p[closing+1:])...)
	}
	return out
}

// exists reports whether p exists (following links).
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int) int {
	return 1 + strings.Count(string(data[:off]), "\n")
}

// lineStarts returns the byte offset at which each line begins, for fast
// offset-to-line lookups in long files.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt returns the 1-based line of offset off given lineStarts' result.
func lineAt(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// display joins a root and a relative path for a finding's File field.
func display(root, rel string) string {
	return filepath.Join(root, filepath.FromSlash(rel))
}

// sortFindings orders findings by file, then line, so reports are stable.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].File != fs[j].File {
			return fs[i].File < fs[j].File
		}
		return fs[i].Line < fs[j].Line
	})
}
