package backends

import (
	"context"
	"slices"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/configs"
)

// Backend is what mlxbuild knows of one backend beside its spec: how its
// toolchain is found, how its GPU architectures are resolved, and the CMake
// option that turns it on in MLX. Each backend's file registers its own
// (cpu.go, rocm.go, cuda.go, metal.go); Names and Lookup read the registry,
// so no caller switches on a backend's name.
type Backend struct {
	Name string
	// Switch is the CMake option that turns the backend on in MLX
	// (MLX_BUILD_ROCM); "" for cpu, which has none. A build of the
	// backend whose CMake cache does not hold it ON builds another one.
	Switch string
	// Toolchain says how its toolchain is found; nil for a backend that
	// needs none (cpu, metal: the system's compilers).
	Toolchain *ToolchainKind
	// Resolve resolves its GPU architectures with a spec's options; nil
	// for a backend without architectures.
	Resolve func(ctx context.Context, o arch.Options) (arch.Result, error)
	// Order places it in Names; configs.Names (the embedded specs, which
	// go generate ./configs orders by it) lists the same order.
	Order int
}

// ToolchainKind is how one backend's toolchain is found and what doctor
// says of it.
type ToolchainKind struct {
	// Locate finds the toolchain; with cacheDir "" it asks afresh, else
	// its answer is kept there between runs (see memo).
	Locate func(env func(string) string, cacheDir string) (Toolchain, error)
	// Title is what doctor calls it ("ROCm toolchain"), Env the variable
	// that moves it when the spec names none, and Install what to do when
	// none is found ("" when the locator's error says it).
	Title, Env, Install string
	// CustomCommands says the backend compiles in CMake custom commands
	// (the ROCm fork's .hip files), which no compiler launcher reaches:
	// the build puts mlxbuild's own launcher in front of them.
	CustomCommands bool
	// rootHeader is the runtime header (under include/) whose presence
	// makes a directory the toolchain's root for LocateRoot, and lastRoot
	// the root it tries after the spec's (nil or "" for none).
	rootHeader string
	lastRoot   func() string
	// Probe is a program the architecture probes run that doctor looks
	// for, and ProbeMissing and ProbeFix what it says without it.
	Probe, ProbeMissing, ProbeFix string
}

// Toolchain is a located toolchain.
type Toolchain interface {
	String() string
	// Info is what the link plan needs of it; env is the variable that
	// moves it.
	Info(env string) *ToolchainInfo
	// CMakeDefines are the defines its layout needs (nil for none), made
	// without writing anything; CMakeSetup writes under scratch what they
	// point at and returns the environment CMake needs too.
	CMakeDefines(scratch string) (map[string]string, error)
	CMakeSetup(scratch string) (map[string]string, []string, error)
	// SupportsArch says why it cannot compile for a GPU target (nil: it
	// can, or it does not say).
	SupportsArch(target string) error
}

// HostCompilerChecker is a toolchain whose compiler drives a host C++
// compiler it accepts only within a range of its own (nvcc and g++).
// CheckHostCompiler says, as bad configuration, why the build's host
// compiler is refused (nil: accepted); defines are the build's CMake
// defines. Its architectures are a list to read, not a probe to compile,
// so doctor checks them too.
type HostCompilerChecker interface {
	CheckHostCompiler(env func(string) string, defines map[string]string) error
}

// locator is a ToolchainKind's Locate made of a backend's one discovery
// function: with no directory it asks afresh; with one, its answer is
// kept there under key (see memo) and used while the files and variables
// discovery read (its witness) are unchanged. Errors are not kept, so a
// fix is seen at once.
func locator[T any, P interface {
	*T
	Toolchain
	memoResult
}](key string, discover func(env func(string) string, w *witness) (P, error)) func(func(string) string, string) (Toolchain, error) {
	return func(env func(string) string, dir string) (Toolchain, error) {
		found, err := locateCached(key, env, dir, discover)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return found, nil
	}
}

// locateCached is discover's answer, kept in dir under key ("" keeps
// nothing and asks afresh).
func locateCached[T any, P interface {
	*T
	memoResult
}](key string, env func(string) string, dir string, discover func(env func(string) string, w *witness) (P, error)) (P, error) {
	if dir == "" {
		return discover(env, nil)
	}
	m := memo{dir: dir}
	if kept := P(new(T)); m.load(key, env, kept) {
		return kept, nil
	}
	w := newWitness()
	found, err := discover(env, w)
	if err != nil {
		return nil, err
	}
	m.store(key, w, found)
	return found, nil
}

var registry []*Backend

// Register adds a backend; its file calls it from init, beside its spec
// configs/<name>.yaml: nothing else lists backends.
func Register(b *Backend) {
	registry = append(registry, b)
	slices.SortStableFunc(registry, func(x, y *Backend) int { return x.Order - y.Order })
}

// Names are the registered backends, in the order the specs list them.
func Names() []string {
	names := make([]string, len(registry))
	for i, b := range registry {
		names[i] = b.Name
	}
	return names
}

// Lookup is the registered backend of that name, or nil.
func Lookup(name string) *Backend {
	for _, b := range registry {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Spec is the backend's effective spec: the project's (cfg) or, outside a
// project (cfg nil), the built-in one.
func (b *Backend) Spec(cfg *configs.Config) (*configs.Spec, error) {
	if cfg == nil {
		return configs.Builtin(b.Name)
	}
	return cfg.Spec(b.Name)
}
