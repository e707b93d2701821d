package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Cache manages mlxbuild's cache directory.
type Cache mg.Namespace

// Clean removes what mlxbuild made in its cache, keeping verified deps. With
// -deps=true the verified dependency cache goes too (deps:fetch refills it
// only from the network or a mirror); with -backend=rocm only that
// backend's part. Entries it did not make stay, and are named.
func (Cache) Clean(backend *string, deps *bool) error {
	// Mage passes a context only to a target that takes one. Cleaning does
	// not stop halfway: a SIGTERM or SIGHUP waits for it to finish.
	return runTarget(context.Background(), "cache:clean", func(_ context.Context, o flow.Options) error {
		return flow.Clean(o, flagValue(backend), deps != nil && *deps)
	}, flag("backend", backend))
}
