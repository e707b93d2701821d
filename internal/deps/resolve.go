package deps

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/cmake"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Choice is the provider chosen for one dependency.
type Choice struct {
	Dep      configs.Dependency
	Provider string // cache, system or dir
	// Dir is the source directory CMake gets (cache: filled by Unpack;
	// dir: the user's directory); "" for system.
	Dir string
	// Package is the package config a system provider found.
	Package *cmake.PackageConfig
	// Defines are the CMake defines the provider needs (system).
	Defines map[string]string
	// Detail says where it comes from, for plan and the stamp.
	Detail string
	// Seed is the mirror entry a cache choice is copied from before
	// configure, when the store does not have it yet.
	Seed string
}

// Input is the stamp value of the choice: a change of provider or of
// content reconfigures CMake.
func (c Choice) Input() string {
	switch c.Provider {
	case "cache":
		return "cache sha256:" + c.Dep.SHA256
	case "system":
		in := "system"
		if c.Package != nil {
			in += " " + c.Package.File + " " + c.Package.Version
		}
		if c.Dir != "" {
			in += " in " + c.Dir
		}
		if in == "system" {
			in += " (defines only)"
		}
		return in
	}
	return c.Provider + " " + c.Dir
}

// Env is what Resolve needs to know of the machine.
type Env struct {
	Store    Store
	Prefixes []string // where system package configs are searched
	// Expand fills {toolchain.*} placeholders of a system source_dir.
	Expand func(string) string
	// Mirror is the project's local mirror (deps_mirror): an archive it
	// holds counts as cached, and is copied in, verified, before configure.
	Mirror string
}

// MissingError names the dependencies no provider satisfies, with every
// way to provide each. It exits with status 1: the configuration is
// right, the machine lacks something.
type MissingError struct {
	Backend string
	Missing []Missing
}

// Missing is one unsatisfied dependency and why each provider failed.
type Missing struct {
	Dep  configs.Dependency
	Ways []string
}

func (e *MissingError) Error() string {
	var b strings.Builder
	n := len(e.Missing)
	fmt.Fprintf(&b, "the %s build needs %s that no provider has (CMake may not download):", e.Backend, plural.Count(n, "dependency"))
	for _, m := range e.Missing {
		fmt.Fprintf(&b, "\n  %s (%s, declared at %s):", m.Dep.Name, m.Dep.Source(), originOf(m.Dep))
		for _, w := range m.Ways {
			b.WriteString("\n    - " + w)
		}
	}
	return b.String()
}

// Resolve picks, for each dependency, the first of its providers that can
// satisfy it on this machine. It touches nothing: the cache provider only
// checks that the verified archive is there.
//
// used, when not nil, holds the names the tree declares (Declared): the
// others are left out, since CMake will never ask for them.
func Resolve(backend string, list []configs.Dependency, used map[string]bool, env Env) ([]Choice, error) {
	var out []Choice
	var missing []Missing
	for _, d := range list {
		if used != nil && !used[strings.ToLower(d.Name)] {
			continue
		}
		c, ways := resolveOne(d, env)
		if c != nil {
			out = append(out, *c)
			continue
		}
		missing = append(missing, Missing{Dep: d, Ways: ways})
	}
	if len(missing) > 0 {
		return out, &MissingError{Backend: backend, Missing: missing}
	}
	return out, nil
}

func resolveOne(d configs.Dependency, env Env) (*Choice, []string) {
	var ways []string
	for _, p := range d.Providers {
		switch p {
		case "cache":
			if env.Store.Has(d) {
				return &Choice{Dep: d, Provider: "cache", Dir: env.Store.Source(d), Detail: "cache sha256 " + d.SHA256[:12]}, nil
			}
			if from := inMirror(d, env.Mirror); from != "" {
				return &Choice{Dep: d, Provider: "cache", Dir: env.Store.Source(d), Seed: from,
					Detail: "cache sha256 " + d.SHA256[:12] + ", seeded from " + from + " first"}, nil
			}
			ways = append(ways, fmt.Sprintf("cache: not fetched; run `go run mage.go deps:fetch` (needs the network) or `deps:fetch -mirror=DIR` with a local copy named %s", mirrorNames(d)))
		case "system":
			c, why := resolveSystem(d, env)
			if c != nil {
				return c, nil
			}
			ways = append(ways, why)
		case "dir":
			dir := d.Dir
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(d.Base, dir)
			}
			if isDir(dir) {
				return &Choice{Dep: d, Provider: "dir", Dir: dir, Detail: "dir " + dir}, nil
			}
			ways = append(ways, fmt.Sprintf("dir: %s does not exist; put %s's source there", dir, d.Name))
		}
	}
	if len(d.Providers) == 1 && d.Providers[0] == "cache" {
		ways = append(ways, "or, in a spec override, add the providers system (with a Debian package) or dir (a directory holding its source)")
	}
	return nil, ways
}

func resolveSystem(d configs.Dependency, env Env) (*Choice, string) {
	s := d.System
	defs := map[string]string{}
	var names []string
	for _, def := range s.Defines {
		defs[def.Name] = def.Value
		names = append(names, def.Name+"="+def.Value)
	}
	with := ""
	if len(names) > 0 {
		with = " with " + strings.Join(names, " ")
	}
	srcDir := s.SourceDir
	if srcDir != "" && env.Expand != nil {
		srcDir = env.Expand(srcDir)
	}
	if srcDir != "" && !isDir(srcDir) {
		return nil, fmt.Sprintf("system: %s (source_dir) does not exist", srcDir)
	}
	if s.FindPackage == "" {
		detail := "system: not needed" + with
		if srcDir != "" {
			detail = "system files in " + srcDir + with
		}
		return &Choice{Dep: d, Provider: "system", Dir: srcDir, Defines: defs, Detail: detail}, ""
	}
	install := "install it"
	if s.Package != "" {
		install = "apt-get install " + s.Package
	}
	pc, ok := cmake.FindPackageConfig(s.FindPackage, env.Prefixes)
	if !ok {
		return nil, fmt.Sprintf("system: no CMake package %s (find_package) under %s; %s (or `go run mage.go setup`)", s.FindPackage, strings.Join(env.Prefixes, ", "), install)
	}
	if s.Version != "" {
		c, _ := version.NewConstraint(s.Version)
		v, err := version.NewVersion(pc.Version)
		if err != nil || !c.Check(v) {
			return nil, fmt.Sprintf("system: %s %s (%s) does not satisfy %q; %s of a matching version", s.FindPackage, orUnknown(pc.Version), pc.File, s.Version, install)
		}
	}
	return &Choice{Dep: d, Provider: "system", Package: &pc, Dir: srcDir, Defines: defs,
		Detail: fmt.Sprintf("system %s %s (%s)%s", s.FindPackage, orUnknown(pc.Version), pc.File, with)}, ""
}

func orUnknown(v string) string {
	if v == "" {
		return "(version unknown)"
	}
	return v
}

// mirrorNames says what -mirror looks for, in the order it looks.
func mirrorNames(d configs.Dependency) string {
	return strings.Join(MirrorCandidates(d), " or ")
}
