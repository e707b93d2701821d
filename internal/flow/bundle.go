package flow

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/bundle"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// ldSoConf is where the dynamic loader's folders are listed.
const ldSoConf = "/etc/ld.so.conf"

// Bundle makes a release bundle in out from executables linked against
// the backend's last build (its link.json), as the spec's bundle policy
// says (internal/bundle). Relative paths are taken from o.Dir.
func Bundle(ctx context.Context, o Options, target, backend string, executables []string, out string) error {
	r, err := open(ctx, o, request{target: target, backend: backend, exact: true, resolve: true})
	defer r.close()
	if err != nil {
		return err
	}
	p := r.Prepared
	plan, err := linkplan.Read(p.Layout.Out)
	if err != nil {
		return fail.AsConfig(err)
	}
	in := bundle.Input{Plan: plan, PlanFile: filepath.Join(p.Layout.Out, linkplan.FileName), Policy: p.Spec.Bundle,
		BuildDir: p.Layout.Build, Out: abs(p.Opts.Dir, out), SystemDirs: bundle.SystemDirs(ldSoConf)}
	if t := p.Toolchain; t != nil {
		in.Toolchain.Name, in.ToolchainRoot = t.Name, t.Root
		if t.Version != nil {
			in.Toolchain.Version = t.Version.String()
		}
	}
	for _, e := range executables {
		in.Executables = append(in.Executables, abs(p.Opts.Dir, e))
	}
	m, err := bundle.Make(ctx, in)
	if err != nil {
		return err
	}
	n := map[string]int{}
	for _, l := range m.Libraries {
		n[l.How]++
	}
	pr := p.Opts.printer()
	pr.Done("bundle %s made: %d program(s), %d libraries bundled, %d required from the system, %d from the GPU driver",
		ui.Escape(in.Out), len(m.Executables), n[bundle.Bundled], n[bundle.Required], n[bundle.Driver])
	pr.Info("check it on the target: mage bundle:check %s", ui.Escape(in.Out))
	return nil
}

// BundleCheck says whether the bundle in dir can run on this machine;
// it fails (exit 1) when it cannot. It needs no project and no toolchain.
func BundleCheck(ctx context.Context, o Options, dir string) error {
	o = o.withDefaults()
	rep, err := bundle.Check(ctx, abs(o.Dir, dir), bundle.CheckOptions{SystemDirs: bundle.SystemDirs(ldSoConf), Arch: arch.Options{Env: o.Env}, Env: o.Env})
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(o.Stderr, "warning: %s\n", ui.Escape(w))
	}
	for _, l := range rep.Lines {
		fmt.Fprintln(o.Stdout, ui.Escape(l))
	}
	if rep.Fails {
		return fmt.Errorf("bundle:check: %s cannot run on this machine (see above)", dir)
	}
	return nil
}

func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
