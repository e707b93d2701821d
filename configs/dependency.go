package configs

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/safepath"

	"github.com/hashicorp/go-version"
)

// Dependency is one thing the project's CMake would download with
// FetchContent. mlxbuild satisfies it itself, from the first provider in
// Providers that can: the verified dependency cache, a system package, or
// a directory the user names. CMake never downloads.
type Dependency struct {
	Pos Pos `json:"-"`
	// Name is the name given to FetchContent_Declare (json, fmt, gguflib).
	Name string `yaml:"name" required:"true"`
	// URL is an archive (.tar.gz, .tar.xz, .zip); Git with Tag and Commit
	// is a repository at one commit. Exactly one of URL and Git is given.
	URL    string `yaml:"url"`
	Git    string `yaml:"git"`
	Tag    string `yaml:"tag"`
	Commit string `yaml:"commit"`
	// Paths limits a git dependency's archive to these paths of the
	// commit (cutlass: include), for a build that uses only them.
	Paths []string `yaml:"paths"`
	// Layout moves paths of a git dependency's commit to where the
	// project expects them, for a project that asks for a release archive
	// laid out unlike the repository: CCCL's cccl-v3.1.3.zip is its
	// install tree (include/cuda is the repository's
	// libcudacxx/include/cuda). Only what a move names is stored; given
	// with Layout, Paths must be empty.
	Layout []Move `yaml:"layout"`
	// SHA256 is the hash of what the cache stores: the archive as
	// downloaded, or for git the deterministic archive of the commit.
	SHA256 string `yaml:"sha256"`
	// Providers are tried in order: cache, system, dir.
	Providers []string        `yaml:"providers" required:"true"`
	System    *SystemProvider `yaml:"system"`
	// Static names archives the dependency's build adds (gguflib builds
	// libgguflib.a): the link plan lists them after the spec's own static
	// libraries when the dependency is built, not when a system provider
	// stands in.
	Static []string `yaml:"static"`
	// Package, when given, makes the dependency a CMake package: the
	// project asks for it with find_package(<Name> CONFIG), not
	// FetchContent, and mlxbuild's dependency provider answers that call
	// from the chosen provider's directory (a header-only library such as
	// rocWMMA, which ships no package config in its repository).
	Package *ServedPackage `yaml:"package"`
	// Dir is a directory holding the dependency's source, relative to the
	// file that declares it.
	Dir string   `yaml:"dir"`
	OS  []string `yaml:"os"`
	// Origin is where it was declared (file:line:col), for messages.
	Origin string `yaml:"-" json:"-"`
	// Base is the directory Dir is relative to (the declaring file's).
	Base string `yaml:"-" json:"-"`
}

// Move is one entry of a git dependency's layout: the repository's From
// is stored as To, both relative, slash-separated.
type Move struct {
	Pos  Pos    `json:"-"`
	From string `yaml:"from" required:"true"`
	To   string `yaml:"to" required:"true"`
}

// ServedPackage is what find_package(<Name>) gets for a dependency served
// as a CMake package: its version and the imported targets it defines.
type ServedPackage struct {
	Pos Pos `json:"-"`
	// Version is reported as <Name>_VERSION and checked against the
	// version the find_package call asks for.
	Version string `yaml:"version"`
	// Targets are defined as INTERFACE IMPORTED targets (roc::rocwmma).
	Targets []ServedTarget `yaml:"targets" required:"true"`
}

// ServedTarget is one imported target of a ServedPackage.
type ServedTarget struct {
	Pos  Pos    `json:"-"`
	Name string `yaml:"name" required:"true"`
	// Include are its include directories, relative to the dependency's
	// source (rocWMMA: library/include).
	Include []string `yaml:"include"`
}

// SystemProvider says how a system installation stands in for a download.
type SystemProvider struct {
	Pos Pos `json:"-"`
	// FindPackage is the CMake package name (find_package(<name> CONFIG));
	// empty when the defines alone make the project not need it.
	FindPackage string `yaml:"find_package"`
	Version     string `yaml:"version"`
	// Package names what installs it (a Debian package), for messages.
	Package string `yaml:"package"`
	// Defines are set when this provider is used: USE_SYSTEM_FMT=ON,
	// MLX_BUILD_GGUF=OFF.
	Defines []Define `yaml:"defines"`
	// SourceDir, when set, is where the system keeps the dependency's
	// files, given to CMake as <name>_SOURCE_DIR (FetchContent_SetPopulated):
	// "{toolchain.root}" for CCCL inside the CUDA toolkit.
	SourceDir string `yaml:"source_dir"`
}

// cmakePackage is a CMake package config the build finds with
// find_package: checked before configure, so a missing one is named in
// seconds instead of after CMake ran.
type cmakePackage struct {
	Pos     Pos      `json:"-"`
	Name    string   `yaml:"name" required:"true"`
	Version string   `yaml:"version"`
	Package string   `yaml:"package"`
	OS      []string `yaml:"os"`
	Origin  string   `yaml:"-" json:"-"`
}

// Dependency providers, in the order a spec usually gives them.
var knownProviders = []string{"cache", "system", "dir"}

var (
	depName = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)
)

// On reports whether the package applies on goos.
func (p cmakePackage) On(goos string) bool { return OnOS(p.OS, goos) }

// on reports whether the dependency applies on goos.
func (d Dependency) on(goos string) bool { return OnOS(d.OS, goos) }

// Source is the URL, or git URL at tag, for messages.
func (d Dependency) Source() string {
	if d.URL != "" {
		return d.URL
	}
	if d.Git == "" {
		return "no download declared"
	}
	if d.Tag != "" {
		return d.Git + " at " + d.Tag + " (" + d.Commit + ")"
	}
	return d.Git + " at " + d.Commit
}

func validateDependencies(deps []Dependency, pos func(string) Pos, ps *problems) {
	seen := map[string]int{}
	for i, d := range deps {
		path := fmt.Sprintf("dependencies[%d]", i)
		if d.Name != "" && !depName.MatchString(d.Name) {
			ps.add(pos(path+".name"), "dependency name %q: give the name used in FetchContent_Declare", d.Name)
		}
		if j, dup := seen[strings.ToLower(d.Name)+"\x00"+strings.Join(d.OS, ",")]; dup {
			ps.add(pos(path+".name"), "dependency %q is declared twice (first in dependencies[%d]); keep one", d.Name, j)
		} else {
			seen[strings.ToLower(d.Name)+"\x00"+strings.Join(d.OS, ",")] = i
		}
		switch {
		case d.URL != "" && d.Git != "":
			ps.add(pos(path+".git"), "dependency %s has both url and git; keep one", d.Name)
		case d.URL != "":
			checkURL(ps, pos(path+".url"), d.URL)
			if d.Tag != "" || d.Commit != "" || len(d.Paths) > 0 || len(d.Layout) > 0 {
				ps.add(pos(path+".url"), "tag, commit, paths and layout belong to a git dependency, not to url")
			}
		case d.Git != "":
			for j, p := range d.Paths {
				if !repoRelative(p) {
					ps.add(pos(fmt.Sprintf("%s.paths[%d]", path, j)), "paths entry %q must be a relative path inside the repository", p)
				}
			}
			if len(d.Layout) > 0 && len(d.Paths) > 0 {
				ps.add(pos(path+".layout"), "give paths or layout, not both: layout stores only what its moves name")
			}
			validateLayout(d.Layout, path, pos, ps)
			if !lowerHex(d.Commit, 40) {
				ps.add(pos(path+".git"), "git dependency %s needs commit: the full 40-hex commit its tag names (a tag can move)", d.Name)
			}
		}
		if d.SHA256 != "" && !lowerHex(d.SHA256, 64) {
			ps.add(pos(path+".sha256"), "sha256 %q must be 64 lowercase hex digits", short(d.SHA256))
		}
		seenProv := map[string]bool{}
		for j, p := range d.Providers {
			ppos := pos(fmt.Sprintf("%s.providers[%d]", path, j))
			oneOf(ps, ppos, "provider", p, knownProviders)
			if seenProv[p] {
				ps.add(ppos, "provider %q is listed twice", p)
			}
			seenProv[p] = true
		}
		if _, given := pos2(pos, path+".providers"); given && len(d.Providers) == 0 {
			ps.add(pos(path+".providers"), "providers is empty; list at least one of %s", strings.Join(knownProviders, ", "))
		}
		if seenProv["cache"] && (d.URL == "" && d.Git == "" || d.SHA256 == "") {
			ps.add(pos(path), "provider cache needs url (or git, tag and commit) and sha256 for %s: the cache keeps only what it verified", d.Name)
		}
		if seenProv["system"] && d.System == nil {
			ps.add(pos(path+".providers"), "provider system needs a system: section (find_package, package, defines)")
		}
		if seenProv["dir"] && d.Dir == "" {
			ps.add(pos(path+".providers"), "provider dir needs dir: the directory that holds %s's source", d.Name)
		}
		validateServedPackage(d, path, pos, ps)
		if s := d.System; s != nil {
			if s.FindPackage != "" && !cmakeName.MatchString(strings.ReplaceAll(s.FindPackage, "-", "_")) {
				ps.add(pos(path+".system.find_package"), "%q is not a CMake package name", s.FindPackage)
			}
			if s.Version != "" {
				if _, err := version.NewConstraint(s.Version); err != nil {
					ps.add(pos(path+".system.version"), "bad version constraint %q: write it like \">= 3.11\"", s.Version)
				}
			}
			checkPlaceholders(ps, pos(path+".system.source_dir"), s.SourceDir)
			for k, def := range s.Defines {
				if def.Name != "" && !cmakeName.MatchString(def.Name) {
					ps.add(pos(fmt.Sprintf("%s.system.defines[%d].name", path, k)), "define name %q is not a CMake variable name", def.Name)
				}
			}
		}
		for j, o := range d.OS {
			oneOf(ps, pos(fmt.Sprintf("%s.os[%d]", path, j)), "platform", o, knownOS)
		}
		for j, l := range d.Static {
			if !libName.MatchString(l) {
				ps.add(pos(fmt.Sprintf("%s.static[%d]", path, j)), "library name %q: give the bare name (gguflib, not libgguflib.a)", l)
			}
		}
	}
}

// repoRelative reports whether p is a clean relative path that stays
// inside a repository (and cannot be read as a git option).
func repoRelative(p string) bool {
	if strings.HasPrefix(p, "-") || safepath.CheckRel(p) != nil {
		return false
	}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

// validateLayout checks each move is relative and that no two moves take
// the same path or land on the same place (the archive would hold one
// file twice).
func validateLayout(moves []Move, path string, pos func(string) Pos, ps *problems) {
	from, to := map[string]int{}, map[string]int{}
	for j, m := range moves {
		mp := fmt.Sprintf("%s.layout[%d]", path, j)
		if m.From != "" && !repoRelative(m.From) {
			ps.add(pos(mp+".from"), "layout from %q must be a relative path inside the repository", m.From)
		}
		if m.To != "" && !repoRelative(m.To) {
			ps.add(pos(mp+".to"), "layout to %q must be a relative path inside the archive", m.To)
		}
		if k, dup := from[m.From]; dup && m.From != "" {
			ps.add(pos(mp+".from"), "layout moves %q twice (first in layout[%d])", m.From, k)
		}
		if k, dup := to[m.To]; dup && m.To != "" {
			ps.add(pos(mp+".to"), "layout puts two paths at %q (first in layout[%d])", m.To, k)
		}
		from[m.From], to[m.To] = j, j
	}
}

func validateCMakePackages(pkgs []cmakePackage, pos func(string) Pos, ps *problems) {
	seen := map[string]bool{}
	for i, p := range pkgs {
		path := fmt.Sprintf("cmake_packages[%d]", i)
		if p.Name != "" && !cmakeName.MatchString(strings.ReplaceAll(p.Name, "-", "_")) {
			ps.add(pos(path+".name"), "%q is not a CMake package name", p.Name)
		}
		if seen[p.Name] {
			ps.add(pos(path+".name"), "CMake package %q is listed twice", p.Name)
		}
		seen[p.Name] = true
		if p.Version != "" {
			if _, err := version.NewConstraint(p.Version); err != nil {
				ps.add(pos(path+".version"), "bad version constraint %q: write it like \">= 4.0\"", p.Version)
			}
		}
		for j, o := range p.OS {
			oneOf(ps, pos(fmt.Sprintf("%s.os[%d]", path, j)), "platform", o, knownOS)
		}
	}
}

func pos2(pos func(string) Pos, path string) (Pos, bool) {
	p := pos(path)
	return p, p.Line > 0
}

func checkURL(ps *problems, pos Pos, s string) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Path == "" || !slices.Contains([]string{"http", "https", "file"}, u.Scheme) {
		ps.add(pos, "url %q must be an http(s) or file URL of an archive", short(s))
	}
}

func mergeDependencies(base, over []Dependency) []Dependency {
	return replaceOrAppend(base, over, func(a, b Dependency) bool {
		return strings.EqualFold(a.Name, b.Name) && strings.Join(a.OS, ",") == strings.Join(b.OS, ",")
	})
}

func mergeCMakePackages(base, over []cmakePackage) []cmakePackage {
	return replaceOrAppend(base, over, func(a, b cmakePackage) bool { return a.Name == b.Name })
}

// targetName is a CMake target name as find_package configs define them
// (roc::rocwmma, hip::device).
var targetName = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.+:-]*$`)

func validateServedPackage(d Dependency, path string, pos func(string) Pos, ps *problems) {
	sp := d.Package
	if sp == nil {
		return
	}
	path += ".package"
	if d.Name != "" && !cmakeName.MatchString(strings.ReplaceAll(d.Name, "-", "_")) {
		ps.add(pos(path), "dependency %q is served to find_package, so its name must be the CMake package name", d.Name)
	}
	if sp.Version != "" {
		if _, err := version.NewVersion(sp.Version); err != nil {
			ps.add(pos(path+".version"), "version %q is not a version: write it like \"1.6.0\"", sp.Version)
		}
	}
	// pos answers a path it does not know with the fallback position: an
	// absent targets key is the required-key check's to report.
	if tp := pos(path + ".targets"); len(sp.Targets) == 0 && tp != pos("\x00absent") {
		ps.add(pos(path+".targets"), "targets is empty; name at least one imported target (e.g. roc::rocwmma)")
	}
	seen := map[string]int{}
	for i, t := range sp.Targets {
		tp := fmt.Sprintf("%s.targets[%d]", path, i)
		if t.Name != "" && !targetName.MatchString(t.Name) {
			ps.add(pos(tp+".name"), "%q is not a CMake target name", t.Name)
		}
		if j, dup := seen[t.Name]; dup && t.Name != "" {
			ps.add(pos(tp+".name"), "target %q is listed twice (first in targets[%d])", t.Name, j)
		}
		seen[t.Name] = i
		for j, inc := range t.Include {
			if !repoRelative(inc) {
				ps.add(pos(fmt.Sprintf("%s.include[%d]", tp, j)), "include %q must be a relative path inside the dependency's source", inc)
			}
		}
	}
	if d.System != nil && d.System.FindPackage != "" && !strings.EqualFold(d.System.FindPackage, d.Name) {
		ps.add(pos(path), "a dependency served to find_package(%s) takes its system provider from the same package; system.find_package is %q", d.Name, d.System.FindPackage)
	}
}
