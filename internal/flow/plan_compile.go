package flow

import (
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
)

// printCompile shows the spec's compile section as the link plan will
// render it for a bridge: the standard, the include directories with the
// tree, build and toolchain filled in, and each macro with where it was declared.
func (p *Prepared) printCompile(w io.Writer) {
	c := p.Spec.Compile
	dirs := strings.NewReplacer("{tree}", p.Layout.Tree, "{build}", p.Layout.Build)
	var include []string
	for _, d := range c.Include {
		include = append(include, backends.Expand(dirs.Replace(d), p.Toolchain))
	}
	// The standard as the link plan will say it: the configured build's,
	// else the spec's.
	built, err := p.buildCXXStd()
	if err != nil {
		built.From = err.Error()
	}
	std, from := backends.CompileStd(p.linkSpec(), built.Std, built.From)
	fmt.Fprintf(w, "compile:   std %s; include %s\n", orNone(std), orNone(strings.Join(include, ", ")))
	if std != "" {
		fmt.Fprintf(w, "  -std=%-35s %s\n", std, from)
	}
	for _, d := range p.Spec.ActiveCompileDefines(p.Opts.GOOS) {
		fmt.Fprintf(w, "  -D%-38s %s\n", d.Flag(), origin0(d.Origin))
	}
}

// buildCXXStd is what the configured build's CMake says of the C++
// standard of the plan's libraries (cmake.ReadCXXStandard).
func (p *Prepared) buildCXXStd() (cmake.CXXStandard, error) {
	var targets []string
	for _, lib := range p.linkSpec().Link.Static {
		if configs.OnOS(lib.OS, p.Opts.GOOS) {
			targets = append(targets, lib.Name)
		}
	}
	return cmake.ReadCXXStandard(p.Layout.Build, targets)
}
