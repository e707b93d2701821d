package flow

import (
	"errors"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/deps"
)

// realMLXHeaders are headers real MLX includes from the system that no
// library check sees: lapacke.h comes from liblapacke-dev, which
// liblapack-dev does not pull in.
var realMLXHeaders = []struct{ file, pkg string }{
	{"lapacke.h", "liblapacke-dev"},
}

// mlxHeaderFindings reports the headers real MLX's CPU code needs.
func mlxHeaderFindings() []Finding {
	var fs []Finding
	for _, h := range realMLXHeaders {
		f := Finding{What: h.file + " (real MLX's LAPACK calls)", Fix: "apt-get install " + h.pkg + " (or `go run mage.go setup`)"}
		for _, dir := range []string{"/usr/include", "/usr/local/include"} {
			if _, err := os.Stat(dir + "/" + h.file); err == nil {
				f.OK, f.Detail = true, dir+"/"+h.file
			}
		}
		if !f.OK {
			f.Detail = "not in /usr/include or /usr/local/include"
		}
		fs = append(fs, f)
	}
	return fs
}

// depFindings says, for each dependency a backend's source declares,
// which provider a build would use, or every way to provide it.
func depFindings(cfg *configs.Config, name string, spec *configs.Spec, o Options) []Finding {
	var used map[string]bool
	if trees := declaringTrees(cfg, name); len(trees) > 0 {
		used, _ = deps.Declared(trees...)
	}
	env := deps.Env{Store: deps.StoreAt(cfg.CacheRoot.Value), Prefixes: cmake.PackagePrefixes(o.Env), Mirror: cfg.Project.Abs(cfg.Project.DepsMirror)}
	choices, err := deps.Resolve(name, spec.ActiveDependencies(o.GOOS), used, env)
	var fs []Finding
	for _, c := range choices {
		fs = append(fs, Finding{Backend: name, What: "dependency " + c.Dep.Name, OK: true, Detail: c.Detail})
	}
	var me *deps.MissingError
	if errors.As(err, &me) {
		for _, m := range me.Missing {
			fs = append(fs, Finding{Backend: name, What: "dependency " + m.Dep.Name, Detail: "no provider has it (" + m.Dep.Source() + ")", Fix: strings.Join(m.Ways, "; ")})
		}
	}
	return fs
}
