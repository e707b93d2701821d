package flow

import (
	"os"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// warnConfigure prints each warning of the configure that just succeeded
// (log: its output) as one line, file:line: its first sentence, naming
// the overlay's file where the tree's copy came from it: a fork's
// message(WARNING ...) says something is off that the build does not stop
// for. Under build:cargo the lines also reach Cargo as cargo:warning=.
func (p *Prepared) warnConfigure(log string, files *userFiles, warn func(string, ...any)) {
	out, err := os.ReadFile(log)
	if err != nil {
		return // the configure wrote its log; a read error only loses the warnings
	}
	for _, d := range cmake.ConfigureWarnings(string(out), p.Layout.Tree) {
		file := d.File
		if f, ok := files.source(d.File); ok {
			file = f.Path
		}
		warn("%s: %s", fail.Pos{File: file, Line: d.Line}, d.Message)
	}
}
