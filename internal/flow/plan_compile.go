package flow

import (
	"fmt"
	"io"
	"strings"
)

// printCompile shows the spec's compile section as the link plan will
// render it for a bridge: the standard, the include directories with the
// tree and build filled in, and each macro with where it was declared.
func (p *Prepared) printCompile(w io.Writer) {
	c := p.Spec.Compile
	dirs := strings.NewReplacer("{tree}", p.Layout.Tree, "{build}", p.Layout.Build)
	var include []string
	for _, d := range c.Include {
		include = append(include, dirs.Replace(d))
	}
	fmt.Fprintf(w, "compile:   std %s; include %s\n", orNone(c.Std), orNone(strings.Join(include, ", ")))
	for _, d := range p.Spec.ActiveCompileDefines(p.Opts.GOOS) {
		fmt.Fprintf(w, "  -D%-38s %s\n", d.Flag(), origin0(d.Origin))
	}
}
