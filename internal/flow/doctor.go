package flow

import (
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Finding is one prerequisite doctor looked at.
type Finding struct {
	Backend string // "" for what every backend needs
	What    string
	OK      bool
	Detail  string // version, path, or what is wrong
	Fix     string // what to install or set
	// Verdict marks the one line of a backend nobody asked about: OK
	// says whether this machine can build it; either way it is not a
	// failure of this machine (see Doctor).
	Verdict bool
}

// Doctor checks every prerequisite of every backend on this machine and
// says, for each gap, what to install or set. It changes nothing. A
// backend is checked in full, each gap a failure, when it is asked for:
// by asked (doctor -backend=NAME), MLXBUILD_BACKENDS or a Cargo feature
// (CARGO_FEATURE_<NAME>), as a build selects; with no request, cpu, which
// a build without one builds. Every other backend gets one Verdict line:
// whether this machine can build it. Doctor returns the findings and
// whether anything asked for is missing; an unknown backend asked for is
// a usage error.
func Doctor(ctx context.Context, o Options, asked string) ([]Finding, bool, error) {
	o = o.withDefaults()
	wanted, err := askedBackends(asked, o.Env)
	if err != nil {
		return nil, false, err
	}
	var fs []Finding
	if err := checkWorkingDir(); err != nil {
		// First: every tool below fails in it for this reason alone.
		fs = append(fs, Finding{What: "working directory", Detail: err.Error(), Fix: "cd to the project"})
	}
	tools := []struct{ name, pkg string }{
		{"cmake", "cmake"}, {"ninja", "ninja-build"}, {"git", "git"}, {"c++", "g++"}, {"readelf", "binutils"},
	}
	for _, t := range tools {
		path, v, err := backends.Tool(t.name)
		f := Finding{What: t.name, OK: err == nil, Fix: "apt-get install " + t.pkg + " (or `go run mage.go setup`)"}
		if err != nil {
			f.Detail = err.Error()
		} else {
			f.Detail = describeTool(path, v)
		}
		fs = append(fs, f)
	}
	if o.GOOS == "linux" {
		fs = append(fs, mlxHeaderFindings()...)
	}
	cfg, cfgErr := configs.LoadConfig(o.Dir, o.Env)
	if cfgErr != nil {
		fs = append(fs, Finding{What: "project file", Detail: cfgErr.Error(), Fix: "create mlxbuild.yaml or set MLXBUILD_CONFIG"})
	} else {
		fs = append(fs, Finding{What: "project file", OK: true, Detail: cfg.Project.File})
		fs = append(fs, launcherFindings(ctx, cfg, o)...)
	}
	var verdicts []Finding
	for _, name := range backends.Names() {
		project := cfg
		if cfgErr != nil {
			project = nil // the built-in specs
		}
		checks := backendFindings(name, project, o)
		if wanted[name] {
			fs = append(fs, checks...)
			continue
		}
		verdicts = append(verdicts, verdict(name, checks))
	}
	fs = append(fs, verdicts...)
	missing := false
	for _, f := range fs {
		if !f.OK && !f.Verdict {
			missing = true
		}
	}
	return fs, missing, nil
}

// askedBackends are the backends doctor checks in full: asked, the
// backends MLXBUILD_BACKENDS and Cargo's features request, or cpu when
// nothing is requested.
func askedBackends(asked string, env func(string) string) (map[string]bool, error) {
	if asked != "" && backends.Lookup(asked) == nil {
		return nil, fail.Configf("%v (requested by doctor -backend=%s)", configs.UnknownBackend(asked), asked)
	}
	wanted := map[string]bool{}
	for _, r := range backends.Requests("doctor", asked, env) {
		if backends.Lookup(r.Backend()) == nil {
			return nil, fail.Configf("%v (requested by %s)", configs.UnknownBackend(r.Backend()), r.From())
		}
		wanted[r.Backend()] = true
	}
	if len(wanted) == 0 {
		wanted["cpu"] = true
	}
	return wanted, nil
}

// backendFindings checks one backend: its spec, its platform, its
// constraints, its toolchain and libraries and, in a project, its
// dependencies. cfg is nil outside a project (the built-in specs).
func backendFindings(name string, cfg *configs.Config, o Options) []Finding {
	spec, err := backends.Lookup(name).Spec(cfg)
	if err != nil {
		return []Finding{{Backend: name, What: "spec", Detail: err.Error(), Fix: "fix the spec file named"}}
	}
	if !slices.Contains(spec.Platforms, o.GOOS) {
		return []Finding{{Backend: name, What: "platform", Detail: fmt.Sprintf("not for %s (builds on %s)", o.GOOS, strings.Join(spec.Platforms, ", ")),
			Fix: fmt.Sprintf("build %s on a %s machine, or cpu here", name, strings.Join(spec.Platforms, " or "))}}
	}
	checks := append(checkConstraints(spec), checkToolchain(name, spec, o)...)
	if cfg != nil {
		checks = append(checks, depFindings(cfg, name, spec, o)...)
	}
	return checks
}

// verdict is the one line of a backend not asked for: whether this
// machine can build it, with its toolchain, or its first gap.
func verdict(name string, checks []Finding) Finding {
	v := Finding{Backend: name, What: name, Verdict: true, OK: true, Detail: "this machine can build it"}
	var gaps []Finding
	for _, c := range checks {
		if !c.OK {
			gaps = append(gaps, c)
		}
	}
	if len(gaps) == 0 {
		if kind := backends.Lookup(name).Toolchain; kind != nil {
			for _, c := range checks {
				if c.What == kind.Title {
					v.Detail += " (" + c.Detail + ")"
				}
			}
		}
		return v
	}
	v.OK = false
	v.Detail = "this machine cannot build it: " + gaps[0].What + ": " + gaps[0].Detail
	if len(gaps) > 1 {
		v.Detail += fmt.Sprintf(" (and %d more; doctor -backend=%s lists them)", len(gaps)-1, name)
	}
	return v
}

func describeTool(path string, v *version.Version) string {
	if v == nil {
		return path
	}
	return fmt.Sprintf("%s %s", path, v)
}

func checkConstraints(spec *configs.Spec) []Finding {
	var fs []Finding
	for _, t := range slices.Sorted(maps.Keys(spec.Constraints)) {
		if toolchainKind(t) != nil {
			continue // versionFinding checks it once the toolchain is found
		}
		c, _ := version.NewConstraint(spec.Constraints[t])
		_, v, err := backends.Tool(t)
		f := Finding{Backend: spec.Backend, What: t + " " + spec.Constraints[t]}
		switch {
		case err != nil:
			f.Detail, f.Fix = err.Error(), "install "+t
		case v == nil:
			f.Detail, f.Fix = "version unreadable", "check `"+t+" --version`"
		case !c.Check(v):
			f.Detail, f.Fix = v.String()+" is too old", "install a newer "+t
		default:
			f.OK, f.Detail = true, v.String()
		}
		fs = append(fs, f)
	}
	return fs
}

// checkToolchain locates the toolchain the spec names, as a build does
// (without its cache), and reports it, its version and its libraries.
func checkToolchain(name string, spec *configs.Spec, o Options) []Finding {
	if spec.Toolchain == nil {
		return nil
	}
	tool := spec.Toolchain.Name
	kind := toolchainKind(tool)
	if kind == nil {
		return []Finding{{Backend: name, What: "toolchain", Detail: fmt.Sprintf("%s: toolchain %q is not one mlxbuild knows", spec.Toolchain.Pos, tool), Fix: "fix the spec file named"}}
	}
	t, err := kind.Locate(o.Env, "")
	if err != nil {
		return []Finding{{Backend: name, What: kind.Title, Detail: err.Error(), Fix: kind.Install}}
	}
	fs := []Finding{{Backend: name, What: kind.Title, OK: true, Detail: t.String()}}
	info := t.Info(toolchainEnv(spec, kind.Env))
	fs = append(fs, versionFinding(name, tool, spec, info.Version))
	fs = append(fs, libFindings(spec, o.GOOS, info)...)
	fs = append(fs, limitFindings(name, spec, t, o)...)
	if kind.Probe != "" {
		if _, err := exec.LookPath(kind.Probe); err != nil {
			fs = append(fs, Finding{Backend: name, What: kind.Probe, Detail: kind.ProbeMissing, Fix: kind.ProbeFix, OK: true})
		}
	}
	return fs
}

func versionFinding(backend, tool string, spec *configs.Spec, v *version.Version) Finding {
	f := Finding{Backend: backend, What: tool + " version", OK: true}
	cs, ok := spec.Constraints[tool]
	if !ok || v == nil {
		f.Detail = "no constraint or unreadable version"
		return f
	}
	c, _ := version.NewConstraint(cs)
	f.What += " " + cs
	f.Detail = v.String()
	if !c.Check(v) {
		f.OK, f.Fix = false, "install a newer "+tool
	}
	return f
}

// libFindings reports the spec's shared libraries as the link plan finds
// them: the same lookup, in the same directories (the toolchain's, the
// project's link.search and the spec's link.stubs).
func libFindings(spec *configs.Spec, goos string, t *backends.ToolchainInfo) []Finding {
	var fs []Finding
	for _, sl := range backends.NewLibLookup(systemLibDirs, systemLibGlobs, "").SharedLibs(spec, goos, t) {
		f := Finding{Backend: spec.Backend, What: "lib" + sl.Lib.Name, OK: sl.Missing == "", Detail: sl.Path}
		switch {
		case sl.LeftOut != "":
			f.Detail = sl.LeftOut
		case sl.Missing != "":
			f.Detail = "not in " + strings.Join(backends.Dirs(spec, t).Search, ", ")
			f.Fix = fmt.Sprintf("install %s, set %s, add its directory to link.search, or drop it with link.remove in a project spec override", sl.Lib.Package, t.Env)
		}
		fs = append(fs, f)
	}
	return fs
}

// toolchainEnv is the variable that moves the spec's toolchain.
func toolchainEnv(spec *configs.Spec, def string) string {
	if spec.Toolchain != nil && spec.Toolchain.Env != "" {
		return spec.Toolchain.Env
	}
	return def
}

// launcherFindings checks the compiler launcher and that its remote cache
// answers, when the project or the environment asks for one.
func launcherFindings(ctx context.Context, cfg *configs.Config, o Options) []Finding {
	lc, err := compilecache.FromEnv(cfg.Project.Launcher, o.Env)
	if err != nil {
		return []Finding{{What: "launcher", Detail: err.Error(), Fix: "fix launcher: in the project file or MLXBUILD_LAUNCHER*"}}
	}
	if lc == nil {
		return []Finding{{What: "launcher", OK: true, Detail: "none configured (launcher: in mlxbuild.yaml shares a compile cache; docs/scaling.md)"}}
	}
	var fs []Finding
	for _, f := range lc.Check(ctx) {
		fs = append(fs, Finding{What: "launcher " + f.What, OK: f.OK, Detail: f.Detail, Fix: fixFor(f.OK, "install "+lc.Tool+" or start the remote cache it names; builds still work without it")})
	}
	return fs
}

func fixFor(ok bool, fix string) string {
	if ok {
		return ""
	}
	return fix
}
