package flow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/deps"
	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// depsEnv is where this build looks for dependencies: the cache root's
// store and the system's CMake package prefixes.
func (p *Prepared) depsEnv() deps.Env {
	return deps.Env{Store: deps.StoreAt(p.Config.CacheRoot.Value), Prefixes: p.packagePrefixes(),
		Expand: func(s string) string { return backends.Expand(s, p.Toolchain) }, Mirror: p.Config.Project.Abs(p.Config.Project.DepsMirror)}
}

func (p *Prepared) packagePrefixes() []string {
	var roots []string
	if p.Toolchain != nil {
		roots = append(roots, p.Toolchain.Root)
	}
	return cmake.PackagePrefixes(p.Opts.Env, roots...)
}

// resolveDeps picks each declared dependency's provider. It changes
// nothing on disk, so plan shows the same choice a build makes; a
// dependency no provider satisfies is kept in DepsErr for build to refuse
// before configure and for plan to show.
//
// trees are the sources CMake will see; only the dependencies they
// declare count. With none (plan before a git source was checked out),
// every declared dependency does.
func (p *Prepared) resolveDeps(trees ...string) error {
	var used map[string]bool
	if len(trees) > 0 {
		var err error
		if used, err = p.declared(trees); err != nil {
			return fmt.Errorf("reading the FetchContent declarations of %s: %w", strings.Join(trees, ", "), err)
		}
	}
	p.depsAsked = used
	p.Deps, p.DepsErr = deps.Resolve(p.Backend, p.Spec.ActiveDependencies(p.Opts.GOOS), used, p.depsEnv())
	for _, c := range p.Deps {
		for k, v := range c.Defines {
			p.Defines[k] = v
		}
		if c.Provider == "system" && c.Package == nil && len(c.Defines) > 0 {
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s is not in the dependency cache: building without it (%s); run deps:fetch to keep it", c.Dep.Name, strings.TrimPrefix(c.Detail, "system: not needed ")))
		}
	}
	return nil
}

// declared are the dependencies trees declare. The backend's tree, once
// this run materialized it, is read through its record (deps.DeclaredCached),
// keyed by the manifest Materialize rewrites with every change of the tree:
// a no-op build reads no CMake file. Any other source (plan's unmaterialized
// tree, a source directory) is scanned.
func (p *Prepared) declared(trees []string) (map[string]bool, error) {
	if len(trees) == 1 && trees[0] == p.Layout.Tree && p.treeKey != "" {
		return deps.DeclaredCached(p.Layout.Tree, p.Layout.Declared, p.treeKey)
	}
	return deps.Declared(trees...)
}

// planTrees are the sources plan reads declarations from without
// writing anything.
func (p *Prepared) planTrees() []string { return declaringTrees(p.Config, p.Backend) }

// declaringTrees are the sources whose FetchContent declarations count for
// a backend before a build: the materialized tree when there is one, else
// a source directory used as is with the overlay; none for a git source not
// checked out yet (then every declared dependency counts).
func declaringTrees(cfg *configs.Config, backend string) []string {
	if tree := cache.For(cfg.CacheRoot.Value, backend).Tree; isDirPath(tree) {
		return []string{tree}
	}
	if cfg.Project.Source.Dir == "" {
		return nil
	}
	trees := []string{cfg.Project.Abs(cfg.Project.Source.Dir)}
	if ov := cfg.Overlay(backend); ov != "" {
		trees = append(trees, ov)
	}
	return trees
}

func isDirPath(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// toolchainGaps lists what the spec needs from the toolchain and the
// system that this machine lacks: CMake package configs (with their
// version constraints) and shared or system libraries. Both are checked
// before configure, so the whole list comes in seconds, not after CMake.
func (p *Prepared) toolchainGaps() []string {
	gaps, _ := p.toolchainGapsLibs()
	return gaps
}

// toolchainGapsLibs is toolchainGaps with the missing-library error kept,
// so callers can still tell what kind of gap it is.
func (p *Prepared) toolchainGapsLibs() ([]string, error) {
	var gaps []string
	var libErr error
	prefixes := p.packagePrefixes()
	var finder cmake.Finder
	for _, pkg := range p.Spec.CMakePackages {
		if !pkg.On(p.Opts.GOOS) {
			continue
		}
		install := "install " + pkg.Name
		if pkg.Package != "" {
			install = "install " + pkg.Package
		}
		pc, ok := finder.Find(pkg.Name, prefixes)
		if !ok {
			gaps = append(gaps, fmt.Sprintf("CMake package %s (find_package, %s): no %sConfig.cmake under %s; %s", pkg.Name, pkg.Origin, pkg.Name, strings.Join(prefixes, ", "), install))
			continue
		}
		if pkg.Version != "" {
			c, _ := version.NewConstraint(pkg.Version)
			v, err := version.NewVersion(pc.Version)
			if err != nil || !c.Check(v) {
				gaps = append(gaps, fmt.Sprintf("CMake package %s %s (%s) does not satisfy %q (%s); %s", pkg.Name, orQ(pc.Version), pc.File, pkg.Version, pkg.Origin, install))
			}
		}
	}
	_, err := p.planLink(true)
	// Every shared and system library has been looked up: keep where each
	// was found, so the next run looks there first.
	p.libLookup().SaveHints()
	if err != nil {
		libErr = err
		var ml *backends.MissingLibraryError
		if errors.As(err, &ml) {
			for _, l := range ml.Lines {
				gaps = append(gaps, "library "+l)
			}
		} else {
			gaps = append(gaps, err.Error())
		}
	}
	return gaps, libErr
}

// GapsError is everything a build needs from the toolchain and the system
// that is missing; it unwraps to the missing-library error when libraries
// are among the gaps.
type GapsError struct {
	Backend, Spec string
	Gaps          []string
	Libs          error
}

func (e *GapsError) Error() string {
	return fmt.Sprintf("the %s build needs what this machine lacks (spec %s):\n  - %s", e.Backend, e.Spec, strings.Join(e.Gaps, "\n  - "))
}

func (e *GapsError) Unwrap() error { return e.Libs }

func orQ(v string) string {
	if v == "" {
		return "(version unknown)"
	}
	return v
}

// checkBeforeConfigure refuses a build that could only fail in CMake:
// missing packages, libraries or dependencies are named all together.
func (p *Prepared) checkBeforeConfigure() error {
	gaps := p.toolchainGaps()
	if len(gaps) == 0 {
		return p.DepsErr
	}
	err := p.gapsError(gaps)
	if p.DepsErr != nil {
		return errors.Join(err, p.DepsErr)
	}
	return err
}

func (p *Prepared) gapsError(gaps []string) error {
	_, libs := p.toolchainGapsLibs()
	return &GapsError{Backend: p.Backend, Spec: p.Spec.Source, Gaps: gaps, Libs: libs}
}

// setupDeps unpacks the cached dependencies (verified again) and writes
// the CMake dependency provider. It returns the provider file.
func (p *Prepared) setupDeps(ctx context.Context) (string, error) {
	env := p.depsEnv()
	if len(p.Deps) > 0 {
		if err := os.MkdirAll(env.Store.Dir, 0o755); err != nil {
			return "", err
		}
		unlock, err := cache.Lock(ctx, env.Store.Lock(), nil)
		if err != nil {
			return "", fmt.Errorf("locking the dependency cache: %w", err)
		}
		defer unlock()
	}
	if err := deps.Seed(ctx, env.Store, p.Deps, env.Mirror); err != nil {
		return "", err
	}
	for i, c := range p.Deps {
		if c.Provider != "cache" {
			continue
		}
		dir, err := env.Store.Unpack(ctx, c.Dep, "")
		if err != nil {
			return "", err
		}
		p.Deps[i].Dir = dir
	}
	file := p.Layout.DepsProvider
	if _, err := atomicfile.WriteIfChanged(file, []byte(deps.ProviderScriptFor(p.Deps, p.lockCommand())), 0o644); err != nil {
		return "", err
	}
	return file, nil
}

// lockCommand is the one command that declares, pins and fetches a
// dependency this backend's tree asks for: deps:lock for the backend, with
// the project's mirror when it has one.
func (p *Prepared) lockCommand() string {
	cmd := "go run mage.go deps:lock -backend=" + p.Backend
	if m := p.Config.Project.DepsMirror; m != "" {
		cmd += " -mirror=" + p.Config.Project.Abs(m)
	}
	return cmd
}

// printDeps is plan's list of dependencies: where each comes from, where
// it is declared, and whether the tree still asks for it.
func (p *Prepared) printDeps(w io.Writer) {
	list := p.depsList()
	if len(list) == 0 {
		fmt.Fprintln(w, "dependencies: (none declared; any FetchContent call stops configure)")
		return
	}
	fmt.Fprintln(w, "dependencies:")
	builtinUnused := 0
	for _, d := range list {
		switch {
		case d.Asked != nil && !*d.Asked && strings.HasPrefix(d.DeclaredAt, "built-in "):
			builtinUnused++ // MLX's, for a project that builds something smaller
		case d.Asked != nil && !*d.Asked:
			fmt.Fprintf(w, "  %-14s unused: the tree does not ask for it [declared at %s]\n", d.Name, d.DeclaredAt)
		case d.Provider == "missing":
			fmt.Fprintf(w, "  %-14s MISSING (%s) [declared at %s%s]:\n", d.Name, d.Source, d.DeclaredAt, askedNote(d.Asked))
			for _, way := range d.ways {
				fmt.Fprintf(w, "  %-14s   - %s\n", "", way)
			}
		default:
			fmt.Fprintf(w, "  %-14s %s [declared at %s%s]\n", d.Name, d.Detail, d.DeclaredAt, askedNote(d.Asked))
		}
	}
	if builtinUnused > 0 {
		fmt.Fprintf(w, "  (%s of the built-in spec, which the tree does not ask for: see plan's JSON form)\n", plural.Count(builtinUnused, "more dependency"))
	}
}

func askedNote(asked *bool) string {
	if asked == nil {
		return "; the tree is not read yet"
	}
	return "; the tree asks for it"
}

// planDep is one declared dependency as plan shows it.
type planDep struct {
	Name     string `json:"name"`
	Provider string `json:"provider"` // cache, system, dir, missing, or "" when unused
	Detail   string `json:"detail"`
	Source   string `json:"source"`
	// DeclaredAt is the declaration's file:line:col: the lock file
	// (mlxbuild.lock), the project's spec or the built-in one.
	DeclaredAt string `json:"declared_at"`
	// Asked says whether the tree's CMake asks for it; null when the
	// source is not checked out yet.
	Asked *bool    `json:"asked"`
	ways  []string // how a missing one can be provided
}

// depsList is every dependency the spec declares for this platform, with
// its choice, in the spec's order.
func (p *Prepared) depsList() []planDep {
	chosen := map[string]deps.Choice{}
	for _, c := range p.Deps {
		chosen[c.Dep.Name] = c
	}
	missing := map[string][]string{}
	var me *deps.MissingError
	if errors.As(p.DepsErr, &me) {
		for _, m := range me.Missing {
			missing[m.Dep.Name] = m.Ways
		}
	}
	var out []planDep
	for _, d := range p.Spec.ActiveDependencies(p.Opts.GOOS) {
		pd := planDep{Name: d.Name, Source: d.Source(), DeclaredAt: origin0(d.Origin)}
		if p.depsAsked != nil {
			asked := p.depsAsked[strings.ToLower(d.Name)]
			pd.Asked = &asked
		}
		if c, ok := chosen[d.Name]; ok {
			pd.Provider, pd.Detail = c.Provider, c.Detail
		} else if ways, ok := missing[d.Name]; ok {
			pd.Provider, pd.ways = "missing", ways
		}
		out = append(out, pd)
	}
	return out
}

// linkSpec is the spec with the archives that built dependencies add
// (gguflib) appended to its static libraries, after MLX's own.
func (p *Prepared) linkSpec() *configs.Spec {
	var extra []configs.Lib
	for _, c := range p.Deps {
		if c.Provider == "system" {
			continue
		}
		for _, name := range c.Dep.Static {
			extra = append(extra, configs.Lib{Name: name, Origin: c.Dep.Origin})
		}
	}
	if len(extra) == 0 {
		return p.Spec
	}
	s := *p.Spec
	s.Link.Static = append(append([]configs.Lib(nil), p.Spec.Link.Static...), extra...)
	return &s
}
