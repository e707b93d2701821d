package targets

import (
	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Cache manages mlxbuild's cache directory.
type Cache mg.Namespace

// Clean removes mlxbuild's cache, or one backend's part of it. With
// -backend=rocm it removes that backend's tree, build and outputs; without
// it, the whole cache.
func (Cache) Clean(backend *string) error {
	b := ""
	if backend != nil {
		b = *backend
	}
	return exit(flow.Clean(current(), b))
}
