package arch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Backends whose target names validate knows.
const (
	ROCm = "rocm"
	CUDA = "cuda"
)

var (
	// cudaRe is a compute capability as CMake takes it: 75, 90a, 100f,
	// optionally -real or -virtual.
	cudaRe = lazyregexp.New(`^([1-9][0-9]{1,2})([af]?)(-real|-virtual)?$`)
	// gfxProcessorRe is a concrete processor name: "gfx", a major version
	// of one or two decimal digits (no leading zero), then minor and
	// stepping as one hex digit each, the way KFD's gfx_target_version is
	// printed (9.0.10 is gfx90a).
	gfxProcessorRe = lazyregexp.New(`^gfx[1-9][0-9]?[0-9a-f][0-9a-f]$`)
	// gfxGenericRe is a generic target such as gfx9-generic or
	// gfx10-3-generic.
	gfxGenericRe = lazyregexp.New(`^gfx[1-9][0-9]?(-[0-9])?-generic$`)
)

// cudaKeywords are CMAKE_CUDA_ARCHITECTURES values that CMake expands itself.
var cudaKeywords = map[string]bool{"native": true, "all": true, "all-major": true}

// invalidError is a target name that does not fit the grammar. It is a
// configuration error: the build must not start with it.
type invalidError struct {
	backend string
	name    string
	why     string
}

func (e *invalidError) Error() string {
	return fmt.Sprintf("invalid %s target %q: %s", e.backend, e.name, e.why)
}

// validate checks one target name against the strict grammar of backend
// ("rocm" or "cuda"). ROCm names are gfx processors with optional
// :sramecc± and :xnack± features (each at most once) or generic targets;
// CUDA names are NN, NNa or NNf (two or three digits), optionally -real or
// -virtual, or one of CMake's keywords native, all and all-major. Nothing
// with a separator, a space or a shell character passes.
func validate(backend, name string) error {
	switch backend {
	case ROCm:
		return validateROCm(name)
	case CUDA:
		return validateCUDA(name)
	default:
		return fmt.Errorf("unknown backend %q: want %q or %q", backend, ROCm, CUDA)
	}
}

// validateCUDA is validate for CUDA: the grammar, a dotted capability
// (nvidia-smi's 12.1) answered with its CMake spelling, and an a or f
// suffix only where such forms exist (a from 90a, f from 100f).
func validateCUDA(name string) error {
	if cudaKeywords[name] {
		return nil
	}
	m := cudaRe.FindStringSubmatch(name)
	if m == nil {
		if fixed, ok := cudaDotted(name); ok {
			return &invalidError{CUDA, name, "write it as " + fixed + " (CMake style, no dot)"}
		}
		return &invalidError{CUDA, name, "want a compute capability such as 86, 90a, 100f or 121a-real (CMake style, no dot; a or f, then -real or -virtual, optional), or native, all, all-major"}
	}
	number, _ := strconv.Atoi(m[1])
	if why := cudaSuffixProblem(number, m[2]); why != "" {
		return &invalidError{CUDA, name, why}
	}
	return nil
}

func validateROCm(name string) error {
	parts := strings.Split(name, ":")
	proc := parts[0]
	if !gfxProcessorRe.MatchString(proc) && !gfxGenericRe.MatchString(proc) {
		return &invalidError{ROCm, name, "want a gfx target such as gfx1100, gfx90a:xnack- or gfx11-generic"}
	}
	seen := map[string]bool{}
	for _, f := range parts[1:] {
		if len(f) < 2 {
			return &invalidError{ROCm, name, "empty target feature"}
		}
		base, sign := f[:len(f)-1], f[len(f)-1]
		if (base != "xnack" && base != "sramecc") || (sign != '+' && sign != '-') {
			return &invalidError{ROCm, name, fmt.Sprintf("unknown target feature %q: want xnack+, xnack-, sramecc+ or sramecc-", f)}
		}
		if seen[base] {
			return &invalidError{ROCm, name, fmt.Sprintf("target feature %s given twice", base)}
		}
		seen[base] = true
	}
	return nil
}

// validateKnown is validate that, for ROCm, also refuses a well-formed name
// the gfx table does not hold (gfx9999): no toolchain compiles for it, so
// it is a typo, reported with the nearest names the table knows.
func validateKnown(backend, name string) error {
	if err := validate(backend, name); err != nil {
		return err
	}
	if backend == CUDA {
		return knownCUDA(name)
	}
	if backend != ROCm {
		return nil
	}
	if _, ok := Lookup(name); !ok {
		why := "not a target mlxbuild's table knows (LLVM AMDGPUUsage)"
		if near := nearest(processor(name), 3); len(near) > 0 {
			why += "; did you mean " + strings.Join(near, ", ") + "?"
		}
		return &invalidError{ROCm, name, why}
	}
	return nil
}

// knownCUDA refuses a well-formed CUDA number the table lacks below its
// newest entry (85, 91): no GPU has it, so it is a typo, reported with the
// nearest numbers. Numbers above the newest are chips newer than the
// table; the toolkit's own list judges those before configure.
func knownCUDA(name string) error {
	if cudaKeywords[name] {
		return nil
	}
	if _, ok := LookupCUDA(name); ok {
		return nil
	}
	number, _ := strconv.Atoi(cudaNumber(name))
	if number > newestCUDA() {
		return nil
	}
	return &invalidError{CUDA, name, "no CUDA GPU has compute capability " + cudaNumber(name) + "; did you mean " + strings.Join(nearestCUDA(number, 2), " or ") + "?"}
}

// Join renders targets the way CMake lists take them: ";"-joined.
func Join(targets []string) string { return strings.Join(targets, ";") }

// Split reads a user's list: ";", "," and white space all separate names,
// and empty items are dropped.
func Split(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r == ';' || r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	})
}

// Kind is configuration: a malformed target name is the user's to fix.
func (e *invalidError) Kind() fail.Kind { return fail.Config }
