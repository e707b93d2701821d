package flow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/deps"
	"github.com/mlxbuild/mlxbuild/internal/fail"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// DepsFetch fills the verified dependency cache with what the specs of
// the named backends (a comma list; "" means cpu and every backend the
// project file configures) declare with the cache provider. With mirror
// set (or the project's deps_mirror) it reads only that local directory
// and never the network, for machines that have none. It is the only step of mlxbuild that downloads.
func DepsFetch(ctx context.Context, o Options, backendList, mirror string) error {
	o = o.withDefaults()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return err
	}
	names, err := fetchBackends(cfg, backendList)
	if err != nil {
		return err
	}
	var list []configs.Dependency
	for _, name := range names {
		spec, err := cfg.Spec(name)
		if err != nil {
			return err
		}
		if !slices.Contains(spec.Platforms, o.GOOS) {
			continue
		}
		// Only what the backend's source declares: the built-in specs know
		// MLX's dependencies, a smaller project needs fewer.
		var used map[string]bool
		if trees := declaringTrees(cfg, name); len(trees) > 0 {
			if used, err = deps.Declared(trees...); err != nil {
				return err
			}
		}
		for _, d := range spec.ActiveDependencies(o.GOOS) {
			if used == nil || used[strings.ToLower(d.Name)] {
				list = append(list, d)
			}
		}
	}
	if mirror, err = mirrorDir(cfg, mirror); err != nil {
		return err
	}
	return fetchList(ctx, o, cfg, names, list, mirror, nil)
}

// mirrorDir is the mirror a command reads: -mirror, else the project's
// deps_mirror, made absolute; "" for none. It must be a directory.
func mirrorDir(cfg *configs.Config, mirror string) (string, error) {
	if mirror == "" && cfg.Project.DepsMirror != "" {
		mirror = cfg.Project.Abs(cfg.Project.DepsMirror)
	}
	if mirror == "" {
		return "", nil
	}
	abs, err := filepath.Abs(mirror)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fail.Configf("-mirror=%s: not a directory; give the directory that holds the archives and git repositories", mirror)
	}
	return abs, nil
}

// fetchList fills the store with list under the store's lock, after
// putting in the archives deps:lock has already read (locked).
func fetchList(ctx context.Context, o Options, cfg *configs.Config, names []string, list []configs.Dependency, mirror string, locked []deps.Locked) error {
	pr := o.printer()
	if err := cache.EnsureRoot(cfg.CacheRoot.Value); err != nil {
		return err
	}
	store := deps.StoreAt(cfg.CacheRoot.Value)
	if err := os.MkdirAll(store.Dir, 0o755); err != nil {
		return err
	}
	unlock, err := cache.Lock(ctx, store.Lock(), func(pid int) {
		pr.Info("waiting for %s that holds %s", cache.Holder(pid), store.Lock())
	})
	if err != nil {
		return fmt.Errorf("locking the dependency cache: %w", err)
	}
	defer unlock()
	for _, l := range locked {
		if !store.Has(l.Dep) {
			if err := store.Put(l); err != nil {
				return err
			}
		}
	}
	pr.Step("dependencies of %s into %s", strings.Join(names, ", "), store.Dir)
	res, err := deps.Fetch(ctx, store, list, deps.FetchOptions{
		Mirror: mirror, Offline: mirror != "",
		Progress: func(f string, a ...any) { pr.Info(f, a...) },
	})
	if err != nil {
		return fmt.Errorf("deps:fetch: %d fetched, and:\n%w", len(res), err)
	}
	pr.Done("%s verified in the cache", plural.Count(len(res), "dependency"))
	return nil
}

func fetchBackends(cfg *configs.Config, list string) ([]string, error) {
	if list != "" {
		var out []string
		for _, n := range strings.Split(list, ",") {
			n = strings.TrimSpace(n)
			if backends.Lookup(n) == nil {
				return nil, configs.UnknownBackend(n)
			}
			out = append(out, n)
		}
		return out, nil
	}
	out := []string{"cpu"}
	for _, n := range backends.Names() {
		if _, ok := cfg.Project.Backends[n]; ok && n != "cpu" {
			out = append(out, n)
		}
	}
	return out, nil
}
