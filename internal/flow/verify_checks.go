package flow

import (
	"context"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// checkInput is what a check is made from: the backend's verify section,
// the folder its scope resolved to ("" for a check that reads none), and,
// once the build ran, the pristine source.
type checkInput struct {
	decl     configs.Verify
	dir      string
	built    bool
	pristine string
}

// checkMaker makes one check of configs.VerifyChecks. It runs only when
// the check can: declared where it must be, its folder there, the build
// done where it needs one (Prepared.check decides).
type checkMaker func(ctx context.Context, p *Prepared, in checkInput) (verify.Check, error)

// checkMakers has a maker for every check of configs.VerifyChecks
// (TestEveryVerifyCheckHasAMaker); config's is nil, as Verify reports it.
var checkMakers = map[string]checkMaker{
	"config":          nil,
	"records":         recordsCheck,
	"integrity":       integrityCheck,
	"kernel_keys":     kernelKeysCheck,
	"wave32":          wave32Check,
	"hygiene":         hygieneCheck,
	"kernel_ports":    kernelPortsCheck,
	"license_headers": licenseHeadersCheck,
	"cross_refs":      crossRefsCheck,
	"isolation":       isolationCheck,
	"rules":           rulesCheck,
	"link": func(ctx context.Context, p *Prepared, in checkInput) (verify.Check, error) {
		return p.linkCheck(ctx, in.decl)
	},
	"gpu_code": func(_ context.Context, p *Prepared, _ checkInput) (verify.Check, error) { return p.gpuCodeCheck(), nil },
}

func recordsCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	c := verify.Records{Overlay: in.dir, Pin: p.Config.Project.Source.Pin}
	if d := in.decl.Records; d != nil {
		c.RequireStatus = d.RequireStatus
	}
	if pb := p.Config.Project.Backends[p.Backend]; pb != nil && pb.Fork != nil {
		c.BackendDirs = pb.Fork.Dirs
	}
	return c, nil
}

func integrityCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	treeOv, err := p.treeOverlay()
	if err != nil {
		return nil, err
	}
	return verify.Integrity{Tree: p.Layout.Tree, Pristine: in.pristine, Overlay: overlayOrEmpty(treeOv, p.Layout), Records: p.Spec.Records, Require: true}, nil
}

func kernelKeysCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	k := in.decl.KernelKeys
	if k == nil {
		return verify.KernelKeys{Root: in.dir, Exclude: p.withoutCache(in.dir, nil)}, nil
	}
	return verify.KernelKeys{Root: in.dir, Include: k.Include, Exclude: p.withoutCache(in.dir, k.Exclude), Files: k.Files, Count: k.Count, Launches: k.Launches}, nil
}

func wave32Check(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	c := verify.Wave32{Root: in.dir}
	if w := in.decl.Wave32; w != nil {
		c.Include, c.Exclude = w.Include, w.Exclude
	}
	c.Exclude = p.withoutCache(in.dir, c.Exclude)
	return c, nil
}

func hygieneCheck(_ context.Context, _ *Prepared, in checkInput) (verify.Check, error) {
	h := in.decl.Hygiene
	return verify.Hygiene{Root: in.dir, Vendored: h.Vendored, Owned: h.Owned, Header: h.Header, HeaderLines: h.HeaderLines, Notice: h.Notice}, nil
}

func kernelPortsCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	k := in.decl.KernelPorts
	return verify.KernelPorts{Root: in.dir, Launchers: k.Launchers, Helpers: k.Helpers, Rust: k.Rust, Exclude: p.withoutCache(in.dir, k.Exclude)}, nil
}

func licenseHeadersCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	l := in.decl.LicenseHeaders
	return verify.LicenseHeaders{Root: in.dir, Files: l.Files, Vendored: l.Vendored, Exclude: p.withoutCache(in.dir, l.Exclude), Header: l.Header, HeaderLines: l.HeaderLines}, nil
}

func crossRefsCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	x := in.decl.CrossRefs
	return verify.CrossRefs{Root: in.dir, Files: x.Files, Vendored: x.Vendored, Exclude: p.withoutCache(in.dir, cmpOr(x.Exclude, verify.DefaultCrossRefExcludes)), Upstream: x.Upstream, Repo: x.Repo}, nil
}

func isolationCheck(_ context.Context, p *Prepared, in checkInput) (verify.Check, error) {
	var foreign []string
	for _, other := range backends.Names() {
		if other != p.Backend {
			foreign = append(foreign, overlaySources(p.Config, other)...)
		}
	}
	own, err := p.treeOverlay()
	if err != nil {
		return nil, err
	}
	return verify.Isolation{CompileCommands: filepath.Join(p.Layout.Build, "compile_commands.json"), Tree: p.Layout.Tree, Foreign: foreign, Own: own, Pristine: in.pristine, Require: true}, nil
}

func rulesCheck(_ context.Context, _ *Prepared, in checkInput) (verify.Check, error) {
	rules := make([]verify.Rule, 0, len(in.decl.Rules))
	for _, r := range in.decl.Rules {
		rules = append(rules, verify.Rule{Name: r.Name, Files: r.Files, Exclude: r.Exclude, MustContain: r.MustContain,
			MustNotContain: r.MustNotContain, Count: r.Count, IgnoreComments: r.IgnoreComments, Why: r.Why})
	}
	return verify.Rules{Root: in.dir, Rules: rules}, nil
}
