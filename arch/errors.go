package arch

import (
	"fmt"
	"strings"
)

// ResolveError is a resolution that found nothing: it lists what was tried
// and names the variable that settles it.
type ResolveError struct {
	Backend  string   // "rocm" or "cuda"
	Var      string   // MLX_ROCM_ARCHITECTURES or MLX_CUDA_ARCHITECTURES
	Tried    []string // one line per source
	Example  string   // an example value for Var
	Warnings []string
}

func (e *ResolveError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no %s GPU architecture could be resolved; tried:\n", e.Backend)
	for _, t := range e.Tried {
		fmt.Fprintf(&b, "  - %s\n", t)
	}
	fmt.Fprintf(&b, "set %s to the targets to build for, e.g. %s=%q (on a machine with the GPU, `mage arch:%s` prints them)",
		e.Var, e.Var, e.Example, e.Backend)
	return b.String()
}
