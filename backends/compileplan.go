package backends

import (
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
)

// planCompile fills the spec's compile section with the build's directories.
func planCompile(s *configs.Spec, in LinkInputs) *linkplan.Compile {
	c := &linkplan.Compile{Std: s.Compile.Std, Include: []string{}, Defines: []string{}}
	r := strings.NewReplacer("{tree}", in.TreeDir, "{build}", in.BuildDir)
	for _, dir := range s.Compile.Include {
		c.Include = configs.Union(c.Include, []string{filepath.Clean(Expand(r.Replace(dir), in.Toolchain))})
	}
	for _, d := range s.ActiveCompileDefines(in.GOOS) {
		c.Defines = append(c.Defines, d.Flag())
	}
	return c
}
