package backends

import (
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
)

// planCompile fills the spec's compile section with the build's directories.
func planCompile(s *configs.Spec, in LinkInputs) *linkplan.Compile {
	std, from := CompileStd(s, in.BuildStd, in.BuildStdFrom)
	c := &linkplan.Compile{Std: std, StdFrom: from, Include: []string{}, Defines: []string{}}
	r := strings.NewReplacer("{tree}", in.TreeDir, "{build}", in.BuildDir)
	for _, dir := range s.Compile.Include {
		c.Include = configs.Union(c.Include, []string{filepath.Clean(Expand(r.Replace(dir), in.Toolchain))})
	}
	for _, d := range s.ActiveCompileDefines(in.GOOS) {
		c.Defines = append(c.Defines, d.Flag())
	}
	return c
}

// CompileStd is the C++ standard a consumer compiles against the tree
// with, and where it came from: the build's (buildStd, read from its
// CMake, so the headers compile as the library did), else the spec's
// compile.std, with why the build said nothing (buildFrom).
func CompileStd(s *configs.Spec, buildStd, buildFrom string) (std, from string) {
	if buildStd != "" {
		return buildStd, buildFrom
	}
	if s.Compile.Std == "" {
		return "", ""
	}
	from = "spec " + s.Source
	if buildFrom != "" {
		from += ": " + buildFrom
	}
	return s.Compile.Std, from
}
