package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/deps"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// Prepared is everything known about a build before the disk is touched:
// the project file and spec loaded, the backend selected, the toolchain
// located and the GPU architectures resolved.
type Prepared struct {
	Opts      Options
	Config    *configs.Config
	Backend   string
	Spec      *configs.Spec
	Layout    cache.Layout
	Toolchain *backends.ToolchainInfo // nil for cpu and metal
	ROCm      *backends.ROCm
	CUDA      *backends.CUDA
	Arch      *arch.Result // nil for backends without architectures
	// Defines are the CMake cache entries, and CMakeEnv the variables
	// CMake's environment needs (Debian's HIP layout).
	Defines  map[string]string
	CMakeEnv []string
	Warnings []string
	// Deps are the providers chosen for the spec's dependencies; DepsErr
	// names those no provider satisfies (a build refuses it before
	// configure, plan shows it).
	Deps    []deps.Choice
	DepsErr error

	// Read or computed once per run (overlayHashes, libLookup, specSum).
	overlaySums struct {
		done  bool
		files map[string]string
		err   error
	}
	libs     *backends.LibLookup
	specHash string
	// treeKey is the identity of the tree's manifest once this run
	// materialized the tree ("" before, or without a manifest).
	treeKey string
	// lastBuild is kept by the first decision for the second.
	lastBuild *lastBuild
	// manifestAhead is the tree's manifest being read while the cache is
	// locked, or nil (materialize reads it then).
	manifestAhead *overlays.ManifestAhead
}

// Prepare loads the configuration, selects the backend (from the target's
// own backend, MLXBUILD_BACKENDS and Cargo features), locates the toolchain,
// checks version constraints and resolves the architectures.
func Prepare(ctx context.Context, o Options, target, backend string) (*Prepared, error) {
	p, err := prepareConfig(o, target, backend)
	if err != nil {
		return nil, err
	}
	if err := p.resolve(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// resolve is the part of Prepare that looks beyond the configuration: the
// toolchain, its constraints, the architectures, the defines.
func (p *Prepared) resolve(ctx context.Context) error {
	o, spec := p.Opts, p.Spec
	if err := p.locateToolchain(); err != nil {
		return err
	}
	if err := p.checkConstraints(); err != nil {
		return err
	}
	if err := p.resolveArch(ctx); err != nil {
		return err
	}
	for _, d := range spec.ActiveDefines(o.GOOS) {
		p.Defines[d.Name] = backends.Expand(d.Value, p.Toolchain)
	}
	if p.Arch != nil {
		for _, v := range spec.Architectures.CMake {
			p.Defines[v] = arch.Join(p.Arch.Targets)
		}
	}
	return nil
}

// prepareConfig is the part of Prepare that reads only the configuration:
// the project file, the backend's selection and spec, the cache layout.
// verify runs its source checks on it when the rest of Prepare fails.
func prepareConfig(o Options, target, backend string) (*Prepared, error) {
	p, err := loadConfig(o, backend)
	if err != nil {
		return nil, err
	}
	if err := p.selectBackend(target, backend); err != nil {
		return nil, err
	}
	return p, nil
}

// loadConfig reads the project file only. The Prepared it returns is for
// the backend the target asks for ("" when it asks none), whose cache
// layout is then known already: selectBackend makes the choice.
func loadConfig(o Options, backend string) (*Prepared, error) {
	o = o.withDefaults()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Opts: o, Config: cfg, Backend: backend, Defines: map[string]string{}}
	if backend != "" {
		p.Layout = cache.For(cfg.CacheRoot.Value, backend)
	}
	return p, nil
}

// selectBackend chooses the backend to build (the target's own,
// MLXBUILD_BACKENDS, Cargo features) and reads its spec.
func (p *Prepared) selectBackend(target, backend string) error {
	o, cfg := p.Opts, p.Config
	// Select reads the chosen backend's spec too: parse and validate it
	// once.
	var spec *configs.Spec
	specOf := func(name string) (*configs.Spec, error) {
		if spec != nil && spec.Backend == name {
			return spec, nil
		}
		s, err := cfg.Spec(name)
		if err == nil {
			spec = s
		}
		return s, err
	}
	chosen, err := backends.Select(backends.Requests(target, backend, o.Env), o.GOOS, specOf)
	if err != nil {
		return err
	}
	if spec, err = specOf(chosen); err != nil {
		return err
	}
	p.Backend, p.Spec, p.Layout = chosen, spec, cache.For(cfg.CacheRoot.Value, chosen)
	return nil
}

// cmakeSetup adds what CMake needs for the toolchain's layout (Debian's
// HIP). It writes a small prefix under the cache, so plan never calls it;
// its values follow from the toolchain root and version, both stamped.
func (p *Prepared) cmakeSetup() (map[string]string, error) {
	defs := map[string]string{}
	for k, v := range p.Defines {
		defs[k] = v
	}
	if p.ROCm != nil {
		// Its defines are toolchainDefines', which the stamp holds.
		extra, env, err := p.ROCm.CMakeSetup(p.Layout.HIPPrefix)
		if err != nil {
			return nil, fmt.Errorf("preparing CMake for %s: %w", p.ROCm, err)
		}
		for k, v := range extra {
			defs[k] = v
		}
		p.CMakeEnv = env
	}
	return defs, nil
}

// toolchainDefines are the defines cmakeSetup adds for the toolchain's
// layout (the HIP compiler, its ROCm root, its flags), made without
// writing anything: stamp inputs, and what the build's decision compares
// with CMake's cache.
func (p *Prepared) toolchainDefines() (map[string]string, error) {
	if p.ROCm == nil {
		return nil, nil
	}
	defs, err := p.ROCm.CMakeDefines(p.Layout.HIPPrefix)
	if err != nil {
		return nil, fmt.Errorf("preparing CMake for %s: %w", p.ROCm, err)
	}
	return defs, nil
}

func (p *Prepared) locateToolchain() error {
	t := p.Spec.Toolchain
	if t == nil {
		return nil
	}
	switch t.Name {
	case "rocm":
		r, err := backends.LocateROCmCached(p.Opts.Env, p.Layout.Discovery)
		if err != nil {
			return err
		}
		p.ROCm = r
		p.Toolchain = rocmInfo(r, t.Env)
	case "cuda":
		c, err := backends.LocateCUDACached(p.Opts.Env, p.Layout.Discovery)
		if err != nil {
			return err
		}
		p.CUDA = c
		p.Toolchain = cudaInfo(c, t.Env)
	default:
		return fail.Configf("%s: toolchain %q is not one mlxbuild knows (rocm, cuda)", t.Pos, t.Name)
	}
	return nil
}

// checkConstraints applies the spec's version constraints (go-version
// syntax) to the tools and the toolchain.
func (p *Prepared) checkConstraints() error {
	var problems, missing []string
	for _, tool := range slices.Sorted(maps.Keys(p.Spec.Constraints)) {
		c, _ := version.NewConstraint(p.Spec.Constraints[tool])
		var v *version.Version
		switch tool {
		case "rocm", "cuda":
			if p.Toolchain == nil || p.Toolchain.Name != tool {
				continue
			}
			v = p.Toolchain.Version
		default:
			_, tv, err := backends.ToolCached(tool, p.Layout.Discovery)
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s: %v", tool, err))
				continue
			}
			v = tv
		}
		if v == nil {
			p.Warnings = append(p.Warnings, fmt.Sprintf("could not read the version of %s to check %q", tool, p.Spec.Constraints[tool]))
			continue
		}
		if !c.Check(v) {
			problems = append(problems, fmt.Sprintf("%s %s does not satisfy %q (from %s); install a newer %s", tool, v, p.Spec.Constraints[tool], p.Spec.Source, tool))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the %s build needs tools this machine lacks:\n  %s\n(on Debian and Ubuntu, `go run mage.go setup` installs them; `doctor` lists every gap)", p.Backend, strings.Join(missing, "\n  "))
	}
	if len(problems) > 0 {
		// Name everything else the toolchain lacks in the same message, so
		// one run shows what a newer toolchain must bring.
		for _, g := range p.toolchainGaps() {
			problems = append(problems, g)
		}
		return fmt.Errorf("the %s build needs newer tools:\n  %s", p.Backend, strings.Join(problems, "\n  "))
	}
	return nil
}

func (p *Prepared) resolveArch(ctx context.Context) error {
	if p.Spec.Architectures == nil {
		return nil
	}
	r, err := resolveArch(ctx, p.Spec, p.Backend, p.Opts.Env)
	if err != nil {
		return err
	}
	p.Arch = &r
	p.Warnings = append(p.Warnings, r.Warnings...)
	return nil
}

// resolveArch resolves a backend's architectures as its spec declares:
// the variable (architectures.env), the probes in their order
// (architectures.probes) and the default list.
func resolveArch(ctx context.Context, spec *configs.Spec, backend string, env func(string) string) (arch.Result, error) {
	a := spec.Architectures
	opts := arch.Options{Env: env, Default: a.Default, Var: a.Env, Probes: a.Probes}
	switch backend {
	case "rocm":
		return arch.ResolveROCm(ctx, opts)
	case "cuda":
		return arch.ResolveCUDA(ctx, opts)
	}
	return arch.Result{}, fmt.Errorf("backend %s declares architectures, but mlxbuild resolves them only for rocm and cuda", backend)
}

// ResolveArch is arch:<backend>: the architectures a build of backend would
// use, resolved by the same function from the project's spec (the built-in
// spec outside a project).
func ResolveArch(ctx context.Context, o Options, backend string) (arch.Result, error) {
	o = o.withDefaults()
	var spec *configs.Spec
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	switch {
	case errors.Is(err, configs.ErrNoProjectFile):
		spec, err = configs.Builtin(backend)
	case err == nil:
		spec, err = cfg.Spec(backend)
	}
	if err != nil {
		return arch.Result{}, err
	}
	if spec.Architectures == nil {
		return arch.Result{}, fail.Configf("backend %s has no GPU architectures to resolve", backend)
	}
	return resolveArch(ctx, spec, backend, o.Env)
}

// checkArchSupport asks the toolchain whether it can compile every target
// (Debian's ROCm 5.2 cannot compile gfx11xx), so the user reads that plainly
// instead of a device-library error deep in the log. Each target costs a
// probe compile, so it runs only before a configure.
func (p *Prepared) checkArchSupport() error {
	if p.ROCm == nil || p.Arch == nil {
		return nil
	}
	for _, t := range p.Arch.Targets {
		if err := p.ROCm.SupportsArch(t); err != nil {
			return err
		}
	}
	return nil
}

// specHash fingerprints the effective spec, so any change to it (built-in
// or override) is a stamp input. A built-in spec's was computed when it
// was generated; the value is the same either way.
func specHash(s *configs.Spec) string { return s.Fingerprint() }

// rocmInfo is what the link plan needs of a located ROCm; env is the
// spec's toolchain variable. A build and doctor both make it here.
func rocmInfo(r *backends.ROCm, env string) *backends.ToolchainInfo {
	return &backends.ToolchainInfo{Name: "rocm", Env: env, Root: r.Root, Bin: r.BinDir, Lib: r.LibDir, Version: r.Version}
}

// cudaInfo is what the link plan needs of a located CUDA toolkit; env is
// the spec's toolchain variable. A build and doctor both make it here.
func cudaInfo(c *backends.CUDA, env string) *backends.ToolchainInfo {
	return &backends.ToolchainInfo{Name: "cuda", Env: env, Root: c.Root, Bin: c.BinDir, Lib: c.LibDir, Version: c.Version}
}
