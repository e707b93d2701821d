package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Deps manages the verified dependency cache that stands in for CMake's
// downloads.
type Deps mg.Namespace

// Fetch downloads and verifies the dependencies the specs declare. They are
// those of cpu and the project's backends, or of -backend=cuda,rocm; each
// sha256 is verified and they are stored in the cache; -mirror=DIR reads a
// local directory instead of the network. It is the
// only target that downloads.
func (Deps) Fetch(ctx context.Context, backend, mirror *string) error {
	return runTarget(ctx, "deps:fetch", func(ctx context.Context, o flow.Options) error {
		return flow.DepsFetch(ctx, o, flagValue(backend), flagValue(mirror))
	}, flag("backend", backend), flag("mirror", mirror))
}

// Lock declares, pins and fetches what the tree's FetchContent asks for.
// A scratch configure of each backend (cpu and the project's, or
// -backend=cuda,rocm) records every request; each tag is resolved to its
// commit (-mirror=DIR: from local repositories and archives, else the
// network), hashed as the cache stores it, written to mlxbuild.lock
// beside mlxbuild.yaml and fetched. A re-run prints what moved.
func (Deps) Lock(ctx context.Context, backend, mirror *string) error {
	return runTarget(ctx, "deps:lock", func(ctx context.Context, o flow.Options) error {
		return flow.DepsLock(ctx, o, flagValue(backend), flagValue(mirror))
	}, flag("backend", backend), flag("mirror", mirror))
}
