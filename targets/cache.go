package targets

import (
	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Cache manages mlxbuild's cache directory.
type Cache mg.Namespace

// Clean removes one backend's trees, builds and outputs (-backend=rocm), or
// the whole cache without it.
func (Cache) Clean(backend *string) error {
	b := ""
	if backend != nil {
		b = *backend
	}
	return exit(flow.Clean(current(), b))
}
