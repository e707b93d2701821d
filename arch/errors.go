package arch

import (
	"fmt"
	"strings"
)

// ResolveError is a resolution that found nothing: it lists what was tried
// and names the variable that settles it.
type ResolveError struct {
	backend  string   // "rocm" or "cuda"
	variable string   // MLX_ROCM_ARCHITECTURES or MLX_CUDA_ARCHITECTURES
	tried    []string // one line per source
	example  string   // an example value for variable
	Warnings []string
}

func (e *ResolveError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no %s GPU architecture could be resolved; tried:\n", e.backend)
	for _, t := range e.tried {
		fmt.Fprintf(&b, "  - %s\n", t)
	}
	fmt.Fprintf(&b, "set %s to the targets to build for, e.g. %s=%q (on a machine with the GPU, `mage arch:%s` prints them)",
		e.variable, e.variable, e.example, e.backend)
	return b.String()
}
