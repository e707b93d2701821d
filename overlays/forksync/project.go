package forksync

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// ForkBackend picks the backend whose project entry has a fork: the one
// named (when name is not ""), else the only one. It returns the fork with
// a local path resolved against the project file's directory.
func ForkBackend(cfg *configs.Config, name string) (string, configs.Fork, error) {
	p := cfg.Project
	if name != "" {
		pb := p.Backends[name]
		if pb == nil || pb.Fork == nil {
			return "", configs.Fork{}, fail.Configf("backends.%s in %s has no fork: entry; add `fork: {git: ..., dirs: [...]}` there, or pick a backend that has one", name, p.File)
		}
		return name, resolveFork(p, pb.Fork), nil
	}
	var with []string
	for n, pb := range p.Backends {
		if pb != nil && pb.Fork != nil {
			with = append(with, n)
		}
	}
	sort.Strings(with)
	switch len(with) {
	case 0:
		return "", configs.Fork{}, fail.Configf("no backend in %s has a fork: entry; add `fork: {git: <fork URL or path>, dirs: [mlx/backend/rocm]}` under the backend whose overlay comes from a fork", p.File)
	case 1:
		return with[0], resolveFork(p, p.Backends[with[0]].Fork), nil
	}
	return "", configs.Fork{}, fail.Configf("backends %s in %s all have a fork: entry; pick one with -backend=%s", strings.Join(with, ", "), p.File, with[0])
}

func resolveFork(p *configs.Project, f *configs.Fork) configs.Fork {
	out := *f
	out.Git = repoURL(f.Git, p.Dir)
	return out
}

// upstreamRepo is MLX's repository for the project: source.git (a local
// path resolved), or source.dir when it is a git checkout, else "".
func upstreamRepo(p *configs.Project) string {
	if p.Source.Git != "" {
		return repoURL(p.Source.Git, p.Dir)
	}
	if p.Source.Dir != "" {
		dir := p.Abs(p.Source.Dir)
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
	}
	return ""
}

// SyncOptionsFor builds the syncOptions of a project's fork backend (see
// ForkBackend) for a sync to commit.
func SyncOptionsFor(cfg *configs.Config, backend, commit string) (string, syncOptions, error) {
	name, fork, err := ForkBackend(cfg, backend)
	if err != nil {
		return "", syncOptions{}, err
	}
	ov := cfg.Overlay(name)
	if ov == "" {
		return "", syncOptions{}, fail.Configf("backends.%s in %s has a fork but no overlay:; add the overlay directory the fork is vendored into", name, cfg.Project.File)
	}
	return name, syncOptions{
		CacheRoot: cfg.CacheRoot.Value,
		Overlay:   ov,
		Fork:      fork,
		Upstream:  upstreamRepo(cfg.Project),
		Commit:    commit,
		Pin:       cfg.Project.Source.Pin,
	}, nil
}

// CheckOptionsFor builds the checkOptions of a project's fork backend (see
// ForkBackend).
func CheckOptionsFor(cfg *configs.Config, backend string, write bool) (string, checkOptions, error) {
	name, fork, err := ForkBackend(cfg, backend)
	if err != nil {
		return "", checkOptions{}, err
	}
	ov := cfg.Overlay(name)
	if ov == "" {
		return "", checkOptions{}, fail.Configf("backends.%s in %s has a fork but no overlay:; add the overlay directory the fork is vendored into", name, cfg.Project.File)
	}
	return name, checkOptions{cacheRoot: cfg.CacheRoot.Value, Overlay: ov, fork: fork, upstream: upstreamRepo(cfg.Project), pin: cfg.Project.Source.Pin, write: write}, nil
}
