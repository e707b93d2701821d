package configs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// checkCacheRoot refuses a cache root that would put mlxbuild's writes, and
// cache:clean's removals, among files that are not mlxbuild's: the file
// system root, the home directory or the shared cache of every tool, the
// project's root or a directory above it, a directory that holds or lies
// inside the overlay, the source or any other path the project file names,
// and an existing directory that is not an mlxbuild cache. It runs when the
// configuration is loaded, before anything is written. Symlinks are
// resolved first (the paths are already clean, so `..` is resolved as the
// writers will resolve it), so a link cannot hide what a root really is.
func (c *Config) checkCacheRoot(env func(string) string) error {
	res := resolver{}
	root := res.resolve(c.CacheRoot.Value)
	fail := func(format string, args ...any) error { return c.cacheRootError(fmt.Sprintf(format, args...)) }
	if err := safepath.CheckControl(c.CacheRoot.Value); err != nil {
		return c.cacheRootError(err.Error())
	}
	if root == filepath.Dir(root) {
		return fail("%s is the file system root", root)
	}
	p := c.Project
	if dir := res.resolve(p.Dir); root == dir || within(root, dir) {
		return fail("%s is the project's root (%s) or a directory above it", root, p.Dir)
	}
	for _, n := range p.namedPaths() {
		q := res.resolve(n.path)
		switch {
		case root == q:
			return fail("%s is %s", root, n.key)
		case within(root, q):
			return fail("%s holds %s (%s)", root, n.key, n.path)
		case within(q, root):
			return fail("%s lies inside %s (%s)", root, n.key, n.path)
		}
	}
	if h := env("HOME"); h != "" {
		home := res.resolve(abs(h))
		if root == home || within(root, home) {
			return fail("%s is the home directory or holds it", root)
		}
		xdg := filepath.Join(home, ".cache")
		if x := env("XDG_CACHE_HOME"); x != "" {
			xdg = res.resolve(abs(x))
		}
		if root == xdg {
			return fail("%s is the cache directory every tool shares; use a directory of mlxbuild's own inside it, such as %s", root, filepath.Join(xdg, "mlxbuild"))
		}
	}
	if err := cache.CheckRoot(c.CacheRoot.Value); err != nil {
		var fe *cache.ForeignRootError
		if errors.As(err, &fe) {
			return fail("%s %s", root, fe.Reason)
		}
		return err
	}
	return nil
}

// cacheRootError names where the cache root came from: the project file's
// cache: key with its position, the variable, or the default.
func (c *Config) cacheRootError(why string) error {
	const own = "a directory of mlxbuild's own, such as target/mlxbuild beside the project file"
	switch {
	case strings.HasPrefix(c.CacheRoot.Origin, "env "):
		return fail.Configf("MLXBUILD_CACHE=%s: %s; mlxbuild writes there and cache:clean removes what it made, so set MLXBUILD_CACHE to %s", c.CacheRoot.Value, why, own)
	case strings.HasPrefix(c.CacheRoot.Origin, "project "):
		return &ConfigError{Problems: []Problem{{Pos: c.Project.pos("cache"), Msg: fmt.Sprintf("cache: %s; mlxbuild writes there and cache:clean removes what it made, so point cache: at %s", why, own)}}}
	}
	return fail.Configf("the default cache %s: %s; set cache: in %s or MLXBUILD_CACHE to a directory of mlxbuild's own", c.CacheRoot.Value, why, c.Project.File)
}

// namedPath is a path the project file names, with its key for messages.
type namedPath struct{ key, path string }

// namedPaths are the paths of the project file that are the user's: the
// source checkout or local repository, the overlays, the spec files and
// local fork repositories.
func (p *Project) namedPaths() []namedPath {
	var out []namedPath
	add := func(key, path string) {
		if path != "" {
			out = append(out, namedPath{key, p.Abs(path)})
		}
	}
	add("source.dir", p.Source.Dir)
	if isLocalRepo(p.Source.Git) {
		add("source.git", p.Source.Git)
	}
	for _, name := range Names {
		b := p.Backends[name]
		if b == nil {
			continue
		}
		base := "backends." + name
		add(base+".overlay", b.Overlay)
		add(base+".spec", b.Spec)
		if b.Fork != nil && isLocalRepo(b.Fork.Git) {
			add(base+".fork.git", b.Fork.Git)
		}
	}
	return out
}

// isLocalRepo says whether a git source is a path on this machine (as
// overlays.Pristine reads it) rather than a URL.
func isLocalRepo(git string) bool {
	return git != "" && !strings.Contains(git, "://") && !strings.Contains(git, "@")
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// within says whether path lies strictly inside dir (both resolved).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
