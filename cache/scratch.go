package cache

import (
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
)

// CMake cannot take some configure inputs into an existing cache. A new
// compiler (CMAKE_<LANG>_COMPILER) makes it delete the cache and configure
// again with only the compiler kept: every -D of the command line is lost
// (the spec's MLX_BUILD_ROCM=ON falls back to the option's OFF). The
// compiler's ROCm or CUDA root, a toolchain file, the compiler variables
// of the environment (CC, CXX, ...) and the toolchain itself (its root and
// version) are read once, by the first configure, and kept: a change is
// silently ignored. The generator and the source directory are refused.
// For each, mlxbuild starts the configure from an empty build directory.

// compilerVar says whether name is CMAKE_<LANG>_COMPILER
// (^CMAKE_[A-Z0-9]+_COMPILER$), compilerRootVar whether it is a
// compiler's toolchain root (^CMAKE_[A-Z0-9]+_COMPILER_[A-Z0-9_]*ROOT$:
// CMAKE_HIP_COMPILER_ROCM_ROOT, CMAKE_CUDA_COMPILER_TOOLKIT_ROOT). Plain
// string checks, not expressions: every build, a no-op too, asks them of
// each define it passes, and compiling the expressions in every process
// showed in a no-op's profile (BenchmarkCompilerVars; docs/benchmarks.md).
func compilerVar(name string) bool {
	lang, ok := strings.CutPrefix(name, "CMAKE_")
	lang, found := strings.CutSuffix(lang, "_COMPILER")
	return ok && found && upperDigits(lang, false)
}

func compilerRootVar(name string) bool {
	rest, ok := strings.CutPrefix(name, "CMAKE_")
	lang, rest, found := strings.Cut(rest, "_")
	if !ok || !found || !upperDigits(lang, false) {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, "COMPILER_"); !ok {
		return false
	}
	if rest, ok = strings.CutSuffix(rest, "ROOT"); !ok {
		return false
	}
	return rest == "" || upperDigits(rest, true)
}

// upperDigits says whether s is one or more of A-Z and 0-9, and of _ when
// underscore is true.
func upperDigits(s string, underscore bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || underscore && c == '_') {
			return false
		}
	}
	return s != ""
}

// firstConfigureVars are the other cache variables CMake reads only into
// a new cache: a changed value needs an empty build directory.
var firstConfigureVars = []string{"CUDAToolkit_ROOT", "CMAKE_TOOLCHAIN_FILE", "CMAKE_GENERATOR_PLATFORM", "CMAKE_GENERATOR_TOOLSET"}

// placeVars are what CMake refuses a cache for: another source directory,
// build directory or generator (a moved cache, a cache of another tool).
var placeVars = []string{"CMAKE_HOME_DIRECTORY", "CMAKE_CACHEFILE_DIR", "CMAKE_GENERATOR"}

// compilerEnv are the variables CMake reads the compilers from when the
// cache names none.
var compilerEnv = []string{"CC", "CXX", "HIPCXX", "CUDACXX", "CUDAHOSTCXX", "ASM"}

// deletingVar ranks a CMake variable that needs an empty build directory
// to change: the source and build directories and the generator first, in
// that order
// (they explain everything else that moved with them), compilers next,
// then their roots, then the rest; -1 for any other variable.
func deletingVar(name string) int {
	if i := slices.Index(placeVars, name); i >= 0 {
		return i
	}
	switch {
	case compilerVar(name):
		return len(placeVars)
	case compilerRootVar(name):
		return len(placeVars) + 1
	case slices.Contains(firstConfigureVars, name):
		return len(placeVars) + 2
	}
	return -1
}

// deletingInput ranks a configure input (a configure record's name) the
// same way: defines by their variable, then the compiler variables of the
// environment, then the toolchain's root and version.
func deletingInput(key string) int {
	if name, ok := strings.CutPrefix(key, "define:"); ok {
		return deletingVar(cmakecache.Name(name))
	}
	if name, ok := strings.CutPrefix(key, "env:"); ok && slices.Contains(compilerEnv, name) {
		return len(placeVars) + 3
	}
	switch key {
	case "toolchain.root":
		return len(placeVars) + 4
	case "toolchain.version":
		return len(placeVars) + 5
	}
	return -1
}

// inputName is how a reason names a configure input: a define by its
// variable, a variable of the environment as such.
func inputName(key string) string {
	if name, ok := strings.CutPrefix(key, "define:"); ok {
		return name
	}
	if name, ok := strings.CutPrefix(key, "env:"); ok {
		return "environment's " + name
	}
	return key
}

// scratchReason says why the build directory must be emptied before this
// configure ("" when it need not): a cache-deleting input differs between
// the configure record (what the directory was last configured with, done
// or not) and this run, or between the CMake cache and what this run sets
// (expect). Of several, the highest ranked is named.
func scratchReason(cfg *ConfigureRecord, cur map[string]string, cmc *cmakecache.Cache, expect map[string]string) string {
	best, why := -1, ""
	consider := func(rank int, text string) {
		if rank >= 0 && (best < 0 || rank < best) {
			best, why = rank, text
		}
	}
	if cfg != nil {
		for _, k := range slices.Sorted(keysOf(cfg.Inputs, cur)) {
			o, had := cfg.Inputs[k]
			n := cur[k]
			if o == n || !had && cacheHolds(cmc, k, n) {
				continue
			}
			consider(deletingInput(k), inputName(k)+" changed: "+show(o)+" -> "+show(n))
		}
	}
	if cmc != nil {
		deleting := map[string]string{}
		for name, v := range expect {
			if deletingVar(name) >= 0 {
				deleting[name] = v
			}
		}
		for _, m := range cmc.Compare(deleting) {
			if !m.Absent {
				consider(deletingVar(m.Name), m.Name+" changed: "+show(m.Have)+" -> "+show(m.Want))
			}
		}
	}
	return why
}

// cacheHolds reports whether a define the configure record does not have
// (an older mlxbuild passed it without recording it: the HIP compiler
// Debian's layout needs) is in the CMake cache with the value this run
// sets: nothing changed, and a from-scratch configure of a real fork build
// would cost an hour for no reason.
func cacheHolds(cmc *cmakecache.Cache, key, value string) bool {
	name, ok := strings.CutPrefix(key, "define:")
	if !ok || cmc == nil || value == "" {
		return false
	}
	return len(cmc.Compare(map[string]string{cmakecache.Name(name): value})) == 0
}

// cacheMismatch says how the CMake cache differs from what this run sets,
// the cache-deleting variables aside ("" when it holds all as set): a
// configure sets them again.
func cacheMismatch(cmc *cmakecache.Cache, expect map[string]string) string {
	if cmc == nil {
		return ""
	}
	for _, m := range cmc.Compare(expect) {
		if deletingVar(m.Name) >= 0 {
			continue
		}
		if m.Absent {
			return cmakecache.FileName + " lacks " + m.Name + "; this build sets " + show(m.Want)
		}
		return cmakecache.FileName + " has " + m.Name + "=" + show(m.Have) + "; this build sets " + show(m.Want)
	}
	return ""
}

func keysOf(a, b map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, ok := a[k]; ok {
				continue
			}
			if !yield(k) {
				return
			}
		}
	}
}
