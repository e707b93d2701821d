package forksync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// gitr runs forksync's git commands (see gitrun). Unlike the pristine
// source's, they also ignore the system's git configuration.
var gitr = gitrun.Runner{Extra: []string{"GIT_CONFIG_NOSYSTEM=1"}}

// git runs git in dir (a work tree or a bare repository; "" for the current
// directory) and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitr.Output(ctx, dir, args...)
}

// gitRaw is git with the untrimmed result, for binary output.
func gitRaw(ctx context.Context, dir string, args ...string) (proc.Result, error) {
	return gitr.Run(ctx, dir, args...)
}

// isURL reports whether s is a URL (scheme://... or scp-like user@host:path)
// rather than a local path.
func isURL(s string) bool {
	return strings.Contains(s, "://") || strings.Contains(s, "@")
}

// repoURL makes a local path absolute against base (the project file's
// directory), since git runs in other directories; URLs stay as they are.
func repoURL(s, base string) string {
	if s == "" || isURL(s) || filepath.IsAbs(s) {
		return s
	}
	return filepath.Join(base, s)
}

// repo is a bare mirror of one repository under the cache.
type repo struct {
	url string // what it mirrors
	dir string // the bare repository
}

// openRepo makes sure the mirror of url exists and holds every rev in revs
// (fetching all refs, then each missing rev by name, only when one is
// missing), and returns it. It holds the cache's source lock meanwhile.
func openRepo(ctx context.Context, cacheRoot, url string, revs ...string) (*repo, error) {
	if cacheRoot == "" {
		return nil, errors.New("forksync: the cache root is empty; set MLXBUILD_CACHE or cache: in mlxbuild.yaml")
	}
	// The callers check where each value comes from, with its position;
	// this is the last line before git.
	if err := checkRepos(url); err != nil {
		return nil, err
	}
	for _, rev := range revs {
		if err := checkArgRev("forksync: the revision", rev, "give a commit id, a branch or a tag"); err != nil {
			return nil, err
		}
	}
	if err := cache.EnsureRoot(cacheRoot); err != nil {
		return nil, err
	}
	r := &repo{url: url, dir: overlays.MirrorDir(cacheRoot, url)}
	unlock, err := cache.Lock(ctx, filepath.Join(cacheRoot, "src", "lock"), nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err != nil {
		if err := gitr.CloneMirror(ctx, url, r.dir); err != nil {
			return nil, fmt.Errorf("forksync: cloning %s failed: %w; check the URL or path in mlxbuild.yaml and that the repository is reachable", url, err)
		}
	}
	var missing []string
	for _, rev := range revs {
		if !r.has(ctx, rev) {
			missing = append(missing, rev)
		}
	}
	if len(missing) == 0 {
		return r, nil
	}
	fetchErr := func() error {
		_, err := git(ctx, r.dir, "fetch", "--quiet", "--prune", "origin")
		return err
	}()
	for _, rev := range missing {
		if r.has(ctx, rev) {
			continue
		}
		// A commit no ref points at can still be fetched by id.
		if _, err := git(ctx, r.dir, "fetch", "--quiet", "--", "origin", rev); err == nil && r.has(ctx, rev) {
			continue
		}
		if fetchErr != nil {
			return nil, fmt.Errorf("forksync: fetching %s from %s failed: %w; check that the repository is reachable", rev, url, fetchErr)
		}
		return nil, fmt.Errorf("forksync: %s is not in %s; check the commit id, or that it was pushed", rev, url)
	}
	return r, nil
}

// has reports whether rev names a commit of the mirror.
func (r *repo) has(ctx context.Context, rev string) bool {
	_, err := git(ctx, r.dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	return err == nil
}

// resolve gives the full commit id of rev.
func (r *repo) resolve(ctx context.Context, rev string) (string, error) {
	id, err := git(ctx, r.dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || id == "" {
		return "", fmt.Errorf("forksync: %q is not a commit of %s; give a commit id or a branch of that repository", rev, r.url)
	}
	return id, nil
}

// lockSrc takes the cache's source lock, shared with overlays.Pristine.
func lockSrc(ctx context.Context, cacheRoot string) (func() error, error) {
	return cache.Lock(ctx, filepath.Join(cacheRoot, "src", "lock"), nil)
}

// checkRepos refuses a repository (the fork, MLX) that git must not be
// given: an option, an ext:: URL, a protocol other than gitrun's (exit
// status 2). "" is skipped: not every sync has an upstream.
func checkRepos(repos ...string) error {
	for _, r := range repos {
		if r == "" {
			continue
		}
		if err := gitrun.CheckRepo(r); err != nil {
			return fail.Configf("forksync: the repository %q %v; give a URL (https://, ssh://, git://, file://) or a path in mlxbuild.yaml", clipValue(r), err)
		}
	}
	return nil
}
