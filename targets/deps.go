package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Deps manages the verified dependency cache that stands in for CMake's
// downloads.
type Deps mg.Namespace

// Fetch downloads the dependencies the specs declare (cpu and the project's
// backends, or -backend=cuda,rocm), verifies each sha256 and stores them;
// -mirror=DIR reads a local directory instead of the network. It is the
// only target that downloads.
func (Deps) Fetch(ctx context.Context, backend, mirror *string) error {
	return exit(flow.DepsFetch(ctx, current(), deref(backend), deref(mirror)))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
