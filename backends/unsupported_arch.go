package backends

import (
	"fmt"
	"strings"
)

// UnsupportedArchError is a GPU target the toolchain cannot compile for:
// bad configuration (the architectures or the toolchain must change), found
// by a probe compile before configure.
type UnsupportedArchError struct {
	target    string // the target asked for, e.g. gfx1151
	toolchain string // which toolchain, with its version and root
	said      string // the compiler's complaint, one short line
	// Nearby are targets this toolchain does compile, nearest to target
	// first (arch.Nearby); set by the caller that probed them.
	Nearby []string
	// Var is the variable that chooses the targets (the spec's
	// architectures.env); "" names MLX_ROCM_ARCHITECTURES.
	Var string
	// family and rootVar name the toolchain and the variable that moves
	// it; "" is ROCm and ROCM_PATH.
	family, rootVar string
}

func (e *UnsupportedArchError) Error() string {
	v := e.Var
	if v == "" {
		v = "MLX_ROCM_ARCHITECTURES"
	}
	fix := fmt.Sprintf("remove %s from %s, or set", e.target, v)
	if len(e.Nearby) > 0 {
		fix = fmt.Sprintf("set %s to a target it supports (nearest: %s), or", v, strings.Join(e.Nearby, ", "))
	}
	family, rootVar := e.family, e.rootVar
	if family == "" {
		family, rootVar = "ROCm", "ROCM_PATH"
	}
	return fmt.Sprintf("%s is not supported by the %s (%s); %s %s to a %s that supports %s",
		e.target, e.toolchain, e.said, fix, rootVar, family, e.target)
}
