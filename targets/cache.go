package targets

import (
	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Cache manages mlxbuild's cache directory.
type Cache mg.Namespace

// Clean removes what mlxbuild made in its cache. With -backend=rocm only in
// that backend's part; entries it did not make stay, and are named.
func (Cache) Clean(backend *string) error {
	b := ""
	if backend != nil {
		b = *backend
	}
	return exit(flow.Clean(current(), b))
}
