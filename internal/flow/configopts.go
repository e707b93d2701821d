package flow

import (
	"context"
	"errors"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
)

// launcherSetup is the compiler launcher of a build whose helper files live
// in dir (the backend's cache directory, or a scratch build's): the tool the
// project or the environment chose, its CMake defines and Ninja's
// environment. A tool that is not installed is warned about and left out;
// the launcher of custom commands stays only for a build that has them.
func (p *Prepared) launcherSetup(dir string, warn func(string, ...any)) (*compilecache.Config, map[string]string, []string, error) {
	lc, err := compilecache.FromEnv(p.Config.Project.Launcher, p.Opts.Env)
	if err != nil {
		return nil, nil, nil, err
	}
	// The base directory is the whole cache root: the tree and build dir
	// are under it, but dependency sources (<root>/deps) are compiled too,
	// and an absolute path to them would make every checkout's hash differ.
	base := p.Config.CacheRoot.Value
	ldefs, lenv, err := lc.Setup(dir, base)
	if errors.Is(err, compilecache.ErrNotInstalled) {
		warn("%v; building without a launcher", err)
		lc = nil
		ldefs, lenv, err = lc.Setup(dir, base)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if !p.customCommands() {
		// Only a HIP build has custom commands the launcher is for.
		compilecache.DropLaunchDefines(ldefs)
	}
	return lc, ldefs, lenv, nil
}

// configureOptions are CMake's configure arguments for p's tree and build
// directory (p.Layout): the toolchain checked for every architecture, the
// spec's and the toolchain's defines with the launcher's (d.ldefs), the
// dependency provider (CMake never downloads) and the script that puts the
// launcher in front of custom commands (RULE_LAUNCH_CUSTOM). build and
// apiDrift's scratch builds both configure through it, so a scratch build
// is configured exactly as the backend's own and runs offline wherever it
// does. The caller sets the log.
func (p *Prepared) configureOptions(ctx context.Context, d *decision) (cmake.ConfigureOptions, error) {
	if err := p.checkArchSupport(); err != nil {
		return cmake.ConfigureOptions{}, err
	}
	defines, err := p.cmakeSetup()
	if err != nil {
		return cmake.ConfigureOptions{}, err
	}
	for k, v := range d.ldefs {
		defines[k] = v
	}
	provider, err := p.setupDeps(ctx)
	if err != nil {
		return cmake.ConfigureOptions{}, err
	}
	includes, err := p.launchScript(d)
	if err != nil {
		return cmake.ConfigureOptions{}, err
	}
	return cmake.ConfigureOptions{
		Source: p.Layout.Tree, Build: p.Layout.Build, Defines: defines, Env: p.CMakeEnv,
		DependencyProvider: provider, Includes: includes,
	}, nil
}

// installLauncher refreshes the custom commands' launcher before Ninja runs
// a build that has them.
func (p *Prepared) installLauncher() error {
	if !p.customCommands() {
		return nil
	}
	return compilecache.InstallLauncher(p.Layout.Dir)
}
