package flow

import (
	"github.com/mlxbuild/mlxbuild/cache"
)

// stampInputs is every input of the build, by the names plan prints.
// Values of trigger variables are recorded as set or unset plainly; a
// launcher's settings are deliberately absent (switching ccache on must not
// rebuild the tree).
func (p *Prepared) stampInputs() (*cache.Stamp, error) {
	s := &cache.Stamp{Inputs: map[string]string{
		"spec":             p.specSum(),
		"pin":              p.pinLabel(),
		"mlxbuild.version": Version,
	}}
	if p.Arch != nil {
		s.Inputs["architectures"] = p.archList
	}
	if p.Toolchain != nil {
		s.Inputs["toolchain.root"] = p.Toolchain.Root
		if p.Toolchain.Version != nil {
			s.Inputs["toolchain.version"] = p.Toolchain.Version.String()
		}
	}
	// The architecture variable and the CMake variables that receive the
	// list are the "architectures" input already: one change, one reason.
	derived := map[string]bool{}
	if a := p.Spec.Architectures; a != nil {
		derived["env:"+a.Env] = true
		for _, v := range a.CMake {
			derived["define:"+v] = true
		}
	}
	for _, e := range p.Spec.Triggers.Env {
		if v, ok := lookupEnv(p.Opts.Env, e); ok && !derived["env:"+e] {
			s.Inputs["env:"+e] = v
		}
	}
	tdefs, err := p.toolchainDefines()
	if err != nil {
		return nil, err
	}
	for _, defs := range []map[string]string{p.Defines, tdefs} {
		for k, v := range defs {
			if !derived["define:"+k] {
				s.Inputs["define:"+k] = v
			}
		}
	}
	// Where each dependency comes from (and its hash) is an input: a new
	// provider or new content reconfigures.
	for _, c := range p.Deps {
		s.Inputs["dep:"+c.Dep.Name] = c.Input()
	}
	files, err := p.overlayHashes()
	if err != nil {
		return nil, err
	}
	if files != nil {
		s.SetOverlay(files)
	}
	return s, nil
}

// specSum is specHash of the run's spec, computed once per run.
func (p *Prepared) specSum() string {
	if p.specHash == "" {
		p.specHash = specHash(p.Spec)
	}
	return p.specHash
}

func lookupEnv(env func(string) string, name string) (string, bool) {
	v := env(name)
	return v, v != ""
}

// pinLabel names the pristine source for the stamp: the pin, or for a
// checkout used as is, its directory (and pin when one is declared).
func (p *Prepared) pinLabel() string {
	src := p.Config.Project.Source
	if src.Dir != "" {
		if src.Pin != "" {
			return src.Pin + " (dir " + p.Config.Project.Abs(src.Dir) + ")"
		}
		return "dir " + p.Config.Project.Abs(src.Dir)
	}
	return src.Pin
}
