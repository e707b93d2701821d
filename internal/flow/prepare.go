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
)

// Prepared is everything known about a build before the disk is touched:
// the project file and the backend's spec, the toolchain, the
// architectures, the defines (a run's opening makes it, see open).
type Prepared struct {
	Opts      Options
	Config    *configs.Config
	Backend   string
	Kind      *backends.Backend // the registry's entry for Backend
	Spec      *configs.Spec
	Layout    cache.Layout
	Toolchain *backends.ToolchainInfo // nil for cpu and metal
	// Located is the toolchain itself (nil for cpu and metal), and
	// toolKind how the registry finds it.
	Located  backends.Toolchain
	toolKind *backends.ToolchainKind
	Arch     *arch.Result // nil for backends without architectures
	// archList is Arch's targets joined once (arch.Join), as the
	// defines, the stamp, plan and the summary give them.
	archList string
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
	// depsAsked are the names the tree asks for (nil: not known, the
	// source is not checked out yet), for plan.
	depsAsked map[string]bool

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
	// treeFingerprint is the materialized tree's content identity, for
	// the link plan ("" before this run materialized the tree).
	treeFingerprint string
	// compileOnly makes the link plan of a check-only run: no library,
	// the standard still read (checkOnlyForCargo).
	compileOnly bool
}

// resolve looks beyond the configuration: the toolchain, its
// constraints, the architectures, the defines.
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
			p.Defines[v] = p.archList
		}
	}
	return nil
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
	p.Backend, p.Kind, p.Spec = chosen, backends.Lookup(chosen), spec
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
	if p.Located != nil {
		// Its defines are toolchainDefines', which the stamp holds.
		extra, env, err := p.Located.CMakeSetup(p.Layout.HIPPrefix)
		if err != nil {
			return nil, fmt.Errorf("preparing CMake for %s: %w", p.Located, err)
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
	if p.Located == nil {
		return nil, nil
	}
	defs, err := p.Located.CMakeDefines(p.Layout.HIPPrefix)
	if err != nil {
		return nil, fmt.Errorf("preparing CMake for %s: %w", p.Located, err)
	}
	return defs, nil
}

func (p *Prepared) locateToolchain() error {
	t := p.Spec.Toolchain
	if t == nil {
		return nil
	}
	kind := toolchainKind(t.Name)
	if kind == nil {
		return fail.Configf("%s: toolchain %q is not one mlxbuild knows (%s)", t.Pos, t.Name, strings.Join(toolchainNames(), ", "))
	}
	located, err := kind.Locate(p.Opts.Env, p.Layout.Discovery)
	if err != nil {
		return err
	}
	p.Located, p.toolKind, p.Toolchain = located, kind, located.Info(t.Env)
	return nil
}

// toolchainKind is how the registry finds the toolchain of that name, or
// nil when no backend has one so named.
func toolchainKind(name string) *backends.ToolchainKind {
	if b := backends.Lookup(name); b != nil {
		return b.Toolchain
	}
	return nil
}

// toolchainNames are the toolchains mlxbuild can locate.
func toolchainNames() []string {
	var names []string
	for _, n := range backends.Names() {
		if toolchainKind(n) != nil {
			names = append(names, n)
		}
	}
	return names
}

// customCommands says the build compiles in CMake custom commands that
// only mlxbuild's launcher reaches (see backends.ToolchainKind).
func (p *Prepared) customCommands() bool { return p.toolKind != nil && p.toolKind.CustomCommands }

// checkConstraints applies the spec's version constraints (go-version
// syntax) to the tools and the toolchain.
func (p *Prepared) checkConstraints() error {
	var problems, missing []string
	for _, tool := range slices.Sorted(maps.Keys(p.Spec.Constraints)) {
		c, _ := version.NewConstraint(p.Spec.Constraints[tool])
		var v *version.Version
		switch {
		case toolchainKind(tool) != nil:
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
		problems = append(problems, p.toolchainGaps()...)
		return fmt.Errorf("the %s build needs newer tools:\n  %s", p.Backend, strings.Join(problems, "\n  "))
	}
	return nil
}

func (p *Prepared) resolveArch(ctx context.Context) error {
	if p.Spec.Architectures == nil {
		return nil
	}
	// A build keeps nvidia-smi's answer in the discovery folder while the
	// GPUs and the driver stay the same (arch.Options.Memo).
	r, err := resolveArch(ctx, p.Spec, p.Backend, p.Opts.Env, p.Layout.Discovery)
	if err != nil {
		return err
	}
	p.Arch, p.archList = &r, arch.Join(r.Targets)
	p.Warnings = append(p.Warnings, r.Warnings...)
	return nil
}

// archDefaultNote is the resolved architectures' note that they are the
// spec's default list (arch.Result.DefaultNote), "" for none.
func (p *Prepared) archDefaultNote(verb string) string {
	if p.Arch == nil {
		return ""
	}
	return p.Arch.DefaultNote(verb)
}

// resolveArch resolves a backend's architectures as its spec declares:
// the variable (architectures.env), the probes in their order
// (architectures.probes) and the default list.
func resolveArch(ctx context.Context, spec *configs.Spec, backend string, env func(string) string, memo string) (arch.Result, error) {
	a := spec.Architectures
	opts := arch.Options{Env: env, Default: a.Default, Var: a.Env, Probes: a.Probes, Memo: memo}
	if b := backends.Lookup(backend); b != nil && b.Resolve != nil {
		return b.Resolve(ctx, opts)
	}
	return arch.Result{}, fmt.Errorf("backend %s declares architectures, but mlxbuild resolves them only for %s", backend, strings.Join(archNames(), " and "))
}

// archNames are the backends whose architectures mlxbuild resolves.
func archNames() []string {
	var names []string
	for _, n := range backends.Names() {
		if backends.Lookup(n).Resolve != nil {
			names = append(names, n)
		}
	}
	return names
}

// ResolveArch is arch:<backend>: the architectures a build of backend would
// use, resolved by the same function from the project's spec (the built-in
// spec outside a project).
func ResolveArch(ctx context.Context, o Options, backend string) (arch.Result, error) {
	o = o.withDefaults()
	b := backends.Lookup(backend)
	if b == nil {
		return arch.Result{}, configs.UnknownBackend(backend)
	}
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if errors.Is(err, configs.ErrNoProjectFile) {
		cfg, err = nil, nil
	}
	if err != nil {
		return arch.Result{}, err
	}
	spec, err := b.Spec(cfg)
	if err != nil {
		return arch.Result{}, err
	}
	if spec.Architectures == nil {
		return arch.Result{}, fail.Configf("backend %s has no GPU architectures to resolve", backend)
	}
	return resolveArch(ctx, spec, backend, o.Env, "")
}

// checkArchSupport asks the toolchain whether it can compile every target
// (Debian's ROCm 5.2 cannot compile gfx11xx), so the user reads that plainly
// instead of a device-library error deep in the log. Each target costs a
// probe compile, so it runs only before a configure. A target it cannot
// compile is bad configuration (exit 2), said with the targets nearest to
// it that the toolchain does compile. A toolchain that drives a host
// compiler (nvcc) is first asked whether it accepts the build's: nvcc
// refuses a g++ newer than it knows only in its first CUDA file.
func (p *Prepared) checkArchSupport() error {
	if hc, ok := p.Located.(backends.HostCompilerChecker); ok {
		if err := hc.CheckHostCompiler(p.Opts.Env, p.Defines); err != nil {
			return err
		}
	}
	if p.Located == nil || p.Arch == nil {
		return nil
	}
	for _, t := range p.Arch.Targets {
		err := p.Located.SupportsArch(t)
		var ua *backends.UnsupportedArchError
		if errors.As(err, &ua) {
			ua.Var = p.Spec.Architectures.Env
			if len(ua.Nearby) == 0 { // a toolchain that lists its targets named them
				ua.Nearby = p.supportedNearby(t)
			}
			return fail.AsConfig(ua)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// nearbyShown and nearbyProbed bound the search for supported stand-ins:
// a refused probe costs about 0.3 s, an accepted one 2 to 4 s.
const nearbyShown, nearbyProbed = 2, 24

// supportedNearby are up to nearbyShown targets nearest to target
// (arch.Nearby) that the toolchain compiles.
func (p *Prepared) supportedNearby(target string) []string {
	var out []string
	for i, n := range arch.Nearby(target) {
		if len(out) == nearbyShown || i == nearbyProbed {
			break
		}
		if p.Located.SupportsArch(n) == nil {
			out = append(out, n)
		}
	}
	return out
}

// specHash fingerprints the effective spec, so any change to it (built-in
// or override) is a stamp input. A built-in spec's was computed when it
// was generated; the value is the same either way.
func specHash(s *configs.Spec) string { return s.Fingerprint() }
