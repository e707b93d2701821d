package flow

import (
	"fmt"
	"maps"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// configureDefines are the defines a configure of this run passes before
// the dependency provider's: the spec's (with the architectures and the
// dependencies'), the toolchain's and the compiler launcher's.
func (p *Prepared) configureDefines(toolchain, launcher map[string]string) map[string]string {
	defs := maps.Clone(p.Defines)
	maps.Copy(defs, toolchain)
	maps.Copy(defs, launcher)
	return defs
}

// cacheEntries are the entries CMake's cache holds after a configure of
// this run with the launcher's defines and the dependency provider file
// ("" leaves its two entries out: plan does not write it).
func (p *Prepared) cacheEntries(launcher map[string]string, provider string) (map[string]string, error) {
	tdefs, err := p.toolchainDefines()
	if err != nil {
		return nil, err
	}
	return cmake.CacheEntries(cmake.ConfigureOptions{
		Source: p.Layout.Tree, Build: p.Layout.Build, Defines: p.configureDefines(tdefs, launcher), DependencyProvider: provider,
	})
}

// checkCache reads CMake's cache back after CMake ran (a configure, or
// Ninja's regeneration) and refuses the build when the cache does not
// hold every entry of expect as it was set, or the backend's own switch
// (MLX_BUILD_ROCM, ...) is not ON: CMake drops the command line's
// defines when it deletes its cache, and a project may turn an option
// off; either way the library would be another backend's.
func (p *Prepared) checkCache(expect map[string]string) error {
	c, err := cmakecache.Read(p.Layout.Build)
	if err != nil {
		return err
	}
	if c == nil {
		return fmt.Errorf("CMake left no %s in %s: configure again, or run `mage cache:clean` if it keeps failing", cmakecache.FileName, p.Layout.Build)
	}
	var lines []string
	named := map[string]bool{}
	for _, m := range c.Compare(expect) {
		named[m.Name] = true
		who := "mlxbuild sets"
		if _, ok := p.Defines[m.Name]; ok {
			who = "the spec sets"
		}
		have := "is not set"
		if !m.Absent {
			have = "is " + quoteValue(m.Have)
		}
		lines = append(lines, fmt.Sprintf("%s %s; %s %s", m.Name, have, who, quoteValue(m.Want)))
	}
	if sw := p.Kind.Switch; sw != "" && !c.On(sw) && !named[sw] {
		have := "is not set"
		if e, ok := c.Get(sw); ok {
			have = "is " + quoteValue(e.Value)
		}
		lines = append(lines, fmt.Sprintf("%s %s; a %s build needs it ON", sw, have, p.Backend))
	}
	if len(lines) == 0 {
		return nil
	}
	return fail.WithFix(fmt.Errorf("refusing to build: %s does not hold what the %s build set, so it would build another library:\n  %s", c.Path, p.Backend, strings.Join(lines, "\n  ")),
		"find what changes it in the tree's CMake files (a set(... CACHE ... FORCE), an option() with another default) or the spec's defines, fix that, then build again")
}

// quoteValue shows a cache value in one line; empty is "".
func quoteValue(v string) string {
	if v == "" || strings.ContainsAny(v, " \t") {
		return fmt.Sprintf("%q", v)
	}
	return v
}
