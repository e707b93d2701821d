package backends

import (
	"fmt"
	"path/filepath"

	"github.com/hashicorp/go-version"
	"github.com/mlxbuild/mlxbuild/configs"
)

// linkDirs are the directories of a backend's link: where the linker
// searches, and what goes into the binary's run path. The link plan,
// plan's output and doctor all take them from Dirs, so none of them can
// name a directory the others do not.
type linkDirs struct {
	// Search is the toolchain's library directory, link.search, then
	// link.stubs: stub directories come last, so a real library of the
	// same name in a search directory wins at link time too.
	Search []string
	// Run is rpath.dirs, then the search directories without the stubs
	// (a stub must never be what the loader finds).
	Run []string
}

// Dirs computes a spec's link directories for a located toolchain (nil
// for cpu and metal).
func Dirs(s *configs.Spec, t *ToolchainInfo) linkDirs {
	var search []string
	if t != nil && t.Lib != "" {
		search = append(search, t.Lib)
	}
	for _, d := range s.Link.Search {
		search = configs.Union(search, []string{Expand(d, t)})
	}
	var run []string
	for _, d := range s.Rpath.Dirs {
		run = configs.Union(run, []string{Expand(d, t)})
	}
	run = configs.Union(run, search)
	for _, d := range s.Link.Stubs {
		search = configs.Union(search, []string{Expand(d, t)})
	}
	if search == nil {
		search = []string{}
	}
	if run == nil {
		run = []string{}
	}
	return linkDirs{Search: search, Run: run}
}

// RpathMode is the spec's rpath mode, runpath when it names none.
func RpathMode(s *configs.Spec) string {
	if s.Rpath.Mode == "" {
		return "runpath"
	}
	return s.Rpath.Mode
}

// sharedLib is the link plan's answer for one shared library of a spec:
// found (Path), left out for the toolchain's version (LeftOut), or
// missing (Missing, the line the plan's error holds).
type sharedLib struct {
	Lib     configs.Lib
	Path    string
	LeftOut string
	Missing string
}

// SharedLibs looks up the spec's shared libraries for goos where the link
// searches (Dirs). The link plan and doctor both ask it, so they agree on
// every library.
func (l *LibLookup) SharedLibs(s *configs.Spec, goos string, t *ToolchainInfo) []sharedLib {
	search := Dirs(s, t).Search
	var out []sharedLib
	for _, lib := range s.Link.Dynamic {
		if !configs.OnOS(lib.OS, goos) {
			continue
		}
		sl := sharedLib{Lib: lib}
		if lib.Toolchain != "" && t != nil && t.Version != nil {
			c, _ := version.NewConstraint(lib.Toolchain)
			if !c.Check(t.Version) {
				sl.LeftOut = fmt.Sprintf("%s left out: it is a separate library only for %s %s, and this toolchain is %s", lib.Name, t.Name, lib.Toolchain, t.Version)
				out = append(out, sl)
				continue
			}
		}
		if path, ok := l.find(search, lib.Name); ok {
			sl.Path = path
		} else {
			sl.Missing = missingShared(lib, search, t)
		}
		out = append(out, sl)
	}
	return out
}

// find is the file that satisfies -l<name> in one of dirs, as inDirs
// looks for it.
func (l *LibLookup) find(dirs []string, name string) (string, bool) {
	if !l.inDirs(dirs, name) {
		return "", false
	}
	dir := dirs[0]
	if l != nil {
		dir = l.found[name]
	} else {
		for _, d := range dirs {
			if l.inDir(d, name) {
				dir = d
				break
			}
		}
	}
	for _, f := range sharedNames(name) {
		if p := filepath.Join(dir, f); l.exist(p) {
			return p, true
		}
	}
	return dir, true
}
