package flow

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Plan prints the resolved spec of a backend (defines, link libraries,
// triggers, each with where it came from) and what a build would redo and
// why. It writes nothing.
func Plan(ctx context.Context, o Options, target, backend string) error {
	r, err := openPlan(ctx, o, target, backend)
	defer r.close()
	if err != nil {
		return err
	}
	p, o := r.Prepared, r.Opts
	w := o.Stdout
	fmt.Fprintf(w, "backend:   %s (%s)\n", p.Backend, p.Spec.Description)
	fmt.Fprintf(w, "project:   %s\n", p.Config.Project.File)
	fmt.Fprintf(w, "spec:      %s\n", p.Spec.Source)
	fmt.Fprintf(w, "source:    %s\n", p.pinLabel())
	fmt.Fprintf(w, "overlay:   %s\n", orNone(p.Config.Overlay(p.Backend)))
	for i, l := range p.layers() {
		fmt.Fprintf(w, "  layer %d: %s%s\n", i+1, l.Dir, layerDetail(l))
	}
	fmt.Fprintf(w, "cache:     %s (%s)\n", p.Layout.Dir, p.Config.CacheRoot.Origin)
	if p.Toolchain != nil {
		fmt.Fprintf(w, "toolchain: %s %s at %s (lib %s)\n", p.Toolchain.Name, verString(p.Toolchain), p.Toolchain.Root, p.Toolchain.Lib)
	}
	if p.Arch != nil {
		fmt.Fprintf(w, "architectures: %s (from %s) -> %s\n", p.archList, p.Arch.Source, strings.Join(p.Spec.Architectures.CMake, ", "))
	}
	jobs, origin := p.Config.Jobs.Value, p.Config.Jobs.Origin
	if jobs == "" {
		n, _ := p.jobs()
		jobs, origin = fmt.Sprint(n), "from cores and memory"
	}
	fmt.Fprintf(w, "jobs:      %s (%s)\n", jobs, origin)
	if lc, err := compilecache.FromEnv(p.Config.Project.Launcher, p.Opts.Env); err != nil {
		return err
	} else if lc != nil {
		remote := "local cache only"
		if lc.Remote != "" {
			remote = "remote " + compilecache.Redact(lc.Remote)
		}
		fmt.Fprintf(w, "launcher:  %s, %s (%s; not a stamp input)\n", lc.Tool, remote, lc.From)
	}
	fmt.Fprintln(w, "defines:")
	for _, d := range p.Spec.ActiveDefines(p.Opts.GOOS) {
		fmt.Fprintf(w, "  %-28s %-40s %s\n", d.Name, backends.Expand(d.Value, p.Toolchain), origin0(d.Origin))
	}
	fmt.Fprintln(w, "link:")
	for _, l := range linkKinds(p.Spec) {
		for _, lib := range l.libs {
			if !lib.On(p.Opts.GOOS) {
				continue
			}
			extra := ""
			if lib.Toolchain != "" {
				extra = " (toolchain " + lib.Toolchain + ")"
			}
			fmt.Fprintf(w, "  %-9s %-28s %s%s\n", l.kind, lib.Name, origin0(lib.Origin), extra)
		}
	}
	p.printDeps(w)
	// What link.json's run_paths will say, from the same function.
	run := backends.Dirs(p.linkSpec(), p.Toolchain).Run
	fmt.Fprintf(w, "run path:  %s %s\n", backends.RpathMode(p.linkSpec()), orNone(strings.Join(run, ":")))
	p.printCompile(w)
	c, why := p.criticalPath(func(format string, args ...any) {
		fmt.Fprintf(w, "warning:   "+format+"\n", args...)
	})
	printCritical(w, c, why)
	fmt.Fprintf(w, "triggers:  env %s", strings.Join(p.Spec.Triggers.Env, ", "))
	if len(p.Spec.Triggers.Paths) > 0 {
		fmt.Fprintf(w, "; paths %s", strings.Join(p.Spec.Triggers.Paths, ", "))
	}
	fmt.Fprintln(w)
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "warning:   %s\n", warn)
	}
	if note := p.archDefaultNote(arch.WouldBuild); note != "" {
		fmt.Fprintf(w, "warning:   %s\n", note)
	}
	// The libraries that do not depend on the build can be checked now:
	// a build would stop on them before compiling.
	if err := p.checkBeforeConfigure(); err != nil {
		fmt.Fprintf(w, "warning:   a build would stop before configure: %s\n", strings.ReplaceAll(err.Error(), "\n", "\n           "))
	}
	return r.explain(w)
}

// openPlan opens a run for plan, its dependencies resolved; the caller
// closes it, error or not.
func openPlan(ctx context.Context, o Options, target, backend string) (*run, error) {
	r, err := open(ctx, o, request{target: target, backend: backend, resolve: true})
	if err != nil {
		return r, err
	}
	return r, r.Prepared.resolveDeps(r.Prepared.planTrees()...)
}

// explain prints the build's own decision: what it would redo and why.
func (r *run) explain(w io.Writer) error {
	rd, err := r.redo(func(format string, args ...any) {
		fmt.Fprintf(w, "warning:   "+format+"\n", args...)
	})
	if err != nil {
		return err
	}
	switch {
	case rd.refused != nil:
		fmt.Fprintf(w, "would refuse the build before configure (exit %d): %v\n", fail.ExitCode(rd.refused), rd.refused)
		return nil
	case rd.what == "" && len(rd.why) == 0:
		fmt.Fprintln(w, "would redo: nothing in mlxbuild's inputs changed; Ninja would check the tree's files")
		return nil
	case rd.what == "":
		fmt.Fprintln(w, "would redo: Ninja's build only (nothing in mlxbuild's inputs changed), because:")
	default:
		fmt.Fprintf(w, "would redo: %s, because:\n", rd.what)
	}
	for _, r := range rd.why {
		fmt.Fprintf(w, "  - %s\n", r)
	}
	return nil
}

// redoing is what a build would redo: what (as cache.Decision.Redo says
// it, "" when none of mlxbuild's inputs changed) and why, or the error
// that would refuse the build before configure.
type redoing struct {
	what    string
	why     []string
	refused error
}

// redo is the build's own decision, for explain and plan -json alike.
func (r *run) redo(warn func(format string, args ...any)) (redoing, error) {
	d, err := r.decide(warn)
	if err != nil {
		return redoing{}, err
	}
	what := d.Redo()
	if d.Configure {
		// What a build checks before it configures, plan checks too: a
		// target the toolchain cannot compile refuses the build.
		if err := r.checkArchSupport(); err != nil {
			return redoing{what: what, why: d.Why, refused: err}, nil
		}
	}
	// A touched source changes none of mlxbuild's inputs, but the build
	// passes the touch on to the tree, and Ninja rebuilds from it.
	touched := touchReasons(r.pendingTouches(), false)
	return redoing{what: what, why: append(append([]string{}, d.Why...), touched...)}, nil
}

// linkKind is one kind of the spec's link libraries, as plan names it.
type linkKind struct {
	kind string
	libs []configs.Lib
}

// linkKinds are the spec's link libraries by kind, in link order.
func linkKinds(s *configs.Spec) []linkKind {
	return []linkKind{{"static", s.Link.Static}, {"dynamic", s.Link.Dynamic}, {"system", s.Link.System}, {"framework", s.Link.Frameworks}}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func origin0(s string) string {
	if strings.HasPrefix(s, "configs/") {
		return "built-in " + s
	}
	return "project " + s
}

func verString(t *backends.ToolchainInfo) string {
	if t.Version == nil {
		return "(version unknown)"
	}
	return t.Version.String()
}
