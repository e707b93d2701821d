package targets

import (
	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Cache manages mlxbuild's cache directory.
type Cache mg.Namespace

// Clean removes what mlxbuild made in one backend's cache (-backend=rocm), or
// in the whole cache without it; entries it did not make stay, and are named.
func (Cache) Clean(backend *string) error {
	b := ""
	if backend != nil {
		b = *backend
	}
	return exit(flow.Clean(current(), b))
}
