package backends

import (
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
)

// CompilePlan is what a consumer's own C++ (a bridge built by Cargo's cc or
// cxx-build crate, or a Makefile rule) compiles against the tree with.
type CompilePlan struct {
	Std     string   `json:"std"`     // c++17, as -std= takes it
	Include []string `json:"include"` // absolute header directories
	Defines []string `json:"defines"` // NAME or NAME=VALUE
}

// planCompile fills the spec's compile section with the build's directories.
func planCompile(s *configs.Spec, in LinkInputs) *CompilePlan {
	c := &CompilePlan{Std: s.Compile.Std, Include: []string{}, Defines: []string{}}
	r := strings.NewReplacer("{tree}", in.TreeDir, "{build}", in.BuildDir)
	for _, dir := range s.Compile.Include {
		c.Include = configs.Union(c.Include, []string{filepath.Clean(Expand(r.Replace(dir), in.Toolchain))})
	}
	for _, d := range s.ActiveCompileDefines(in.GOOS) {
		c.Defines = append(c.Defines, d.Flag())
	}
	return c
}

// Cxxflags renders the compile plan as arguments for a C++ compiler, on one
// line, space separated (the spec refuses values with white space).
func (p *LinkPlan) Cxxflags() string {
	var args []string
	if p.Compile.Std != "" {
		args = append(args, "-std="+p.Compile.Std)
	}
	for _, d := range p.Compile.Include {
		args = append(args, "-I"+d)
	}
	for _, d := range p.Compile.Defines {
		args = append(args, "-D"+d)
	}
	return strings.Join(args, " ") + "\n"
}

// cargoMetadata are the lines a build script prints as its links metadata:
// with `links = "mlx"` in the crate's manifest, Cargo hands each KEY to the
// build scripts of the crates that depend on it as DEP_MLX_<KEY>. A
// dependency's rustc-link-arg never reaches a dependent's binaries, so
// this is how a workspace's binary crates learn the run path; the compile
// keys let the crate's own build script (and a dependent's) compile C++
// against the tree. Lists are joined as the platform's PATH is, since a
// key may appear once.
func (p *LinkPlan) cargoMetadata() []string {
	lines := []string{
		"runpath=" + strings.Join(p.RunPaths, string(filepath.ListSeparator)),
		"rpath_mode=" + p.RpathMode,
		"include=" + strings.Join(p.Compile.Include, string(filepath.ListSeparator)),
		"defines=" + strings.Join(p.Compile.Defines, " "),
		"cxx_std=" + p.Compile.Std,
		"backend=" + p.Backend,
	}
	return lines
}
