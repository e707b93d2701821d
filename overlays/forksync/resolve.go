package forksync

import (
	"context"

	"github.com/mlxbuild/mlxbuild/configs"
)

// Upstream is the MLX repository a project's history comes from (source.git,
// or source.dir when it is a git checkout), "" when it has none.
func Upstream(p *configs.Project) string { return upstreamRepo(p) }

// ResolveUpstream makes sure the shared mirror of url under cacheRoot holds
// rev and every rev of also, and returns rev's full commit id. It is how a
// build flow on another pin (overlay:apiDrift) gets its commits without
// knowing git.
func ResolveUpstream(ctx context.Context, cacheRoot, url, rev string, also ...string) (string, error) {
	repo, err := openRepo(ctx, cacheRoot, url, append([]string{rev}, also...)...)
	if err != nil {
		return "", err
	}
	return repo.resolve(ctx, rev)
}
