package flow

import (
	"context"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// CheckInput is what a check is made from: the backend's verify section,
// the folder its scope resolved to ("" for a check that reads none), and,
// once the build ran, the pristine source.
type CheckInput struct {
	Decl     configs.Verify
	Dir      string
	Built    bool
	Pristine string
}

// CheckMaker makes one check of configs.VerifyChecks. It runs only when
// the check can: declared where it must be, its folder there, the build
// done where it needs one (Prepared.check decides).
type CheckMaker func(ctx context.Context, p *Prepared, in CheckInput) (verify.Check, error)

// RegisterCheck adds a check to verify: its entry (name, project-file
// section, default scope, whether it needs the build) to the table a
// spec's verify: list is validated against, and its maker here. A check
// added this way is one file; the built-in checks' entries stay in
// configs.VerifyChecks, because configs validates the embedded specs'
// verify: lists (and declares each section's schema) without this package.
func RegisterCheck(entry configs.VerifyCheck, mk CheckMaker) error {
	if err := configs.AddVerifyCheck(entry); err != nil {
		return err
	}
	checkMakers[entry.Name] = mk
	return nil
}

// checkMakers has a maker for every check of configs.VerifyChecks
// (TestEveryVerifyCheckHasAMaker); config's is nil, as Verify reports it.
var checkMakers = map[string]CheckMaker{
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
	"link": func(ctx context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
		return p.linkCheck(ctx, in.Decl)
	},
	"gpu_code": func(_ context.Context, p *Prepared, _ CheckInput) (verify.Check, error) { return p.gpuCodeCheck(), nil },
}

func recordsCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	c := verify.Records{Overlay: in.Dir, Pin: p.Config.Project.Source.Pin}
	if d := in.Decl.Records; d != nil {
		c.RequireStatus = d.RequireStatus
	}
	if pb := p.Config.Project.Backends[p.Backend]; pb != nil && pb.Fork != nil {
		c.BackendDirs = pb.Fork.Dirs
	}
	return c, nil
}

func integrityCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	treeOv, err := p.treeOverlay()
	if err != nil {
		return nil, err
	}
	return verify.Integrity{Tree: p.Layout.Tree, Pristine: in.Pristine, Overlay: overlayOrEmpty(treeOv, p.Layout), Records: p.Spec.Records, Require: true}, nil
}

func kernelKeysCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	k := in.Decl.KernelKeys
	if k == nil {
		return verify.KernelKeys{Root: in.Dir, Exclude: p.withoutCache(in.Dir, nil)}, nil
	}
	return verify.KernelKeys{Root: in.Dir, Include: k.Include, Exclude: p.withoutCache(in.Dir, k.Exclude), Files: k.Files, Count: k.Count, Launches: k.Launches}, nil
}

func wave32Check(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	c := verify.Wave32{Root: in.Dir}
	if w := in.Decl.Wave32; w != nil {
		c.Include, c.Exclude = w.Include, w.Exclude
	}
	c.Exclude = p.withoutCache(in.Dir, c.Exclude)
	return c, nil
}

func hygieneCheck(_ context.Context, _ *Prepared, in CheckInput) (verify.Check, error) {
	h := in.Decl.Hygiene
	return verify.Hygiene{Root: in.Dir, Vendored: h.Vendored, Owned: h.Owned, Header: h.Header, HeaderLines: h.HeaderLines, Notice: h.Notice}, nil
}

func kernelPortsCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	k := in.Decl.KernelPorts
	return verify.KernelPorts{Root: in.Dir, Launchers: k.Launchers, Helpers: k.Helpers, Rust: k.Rust, Exclude: p.withoutCache(in.Dir, k.Exclude)}, nil
}

func licenseHeadersCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	l := in.Decl.LicenseHeaders
	return verify.LicenseHeaders{Root: in.Dir, Files: l.Files, Vendored: l.Vendored, Exclude: p.withoutCache(in.Dir, l.Exclude), Header: l.Header, HeaderLines: l.HeaderLines}, nil
}

func crossRefsCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
	x := in.Decl.CrossRefs
	return verify.CrossRefs{Root: in.Dir, Files: x.Files, Vendored: x.Vendored, Exclude: p.withoutCache(in.Dir, cmpOr(x.Exclude, verify.DefaultCrossRefExcludes)), Upstream: x.Upstream, Repo: x.Repo}, nil
}

func isolationCheck(_ context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
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
	return verify.Isolation{CompileCommands: filepath.Join(p.Layout.Build, "compile_commands.json"), Tree: p.Layout.Tree, Foreign: foreign, Own: own, Pristine: in.Pristine, Require: true}, nil
}

func rulesCheck(_ context.Context, _ *Prepared, in CheckInput) (verify.Check, error) {
	rules := make([]verify.Rule, 0, len(in.Decl.Rules))
	for _, r := range in.Decl.Rules {
		rules = append(rules, verify.Rule{Name: r.Name, Files: r.Files, Exclude: r.Exclude, MustContain: r.MustContain,
			MustNotContain: r.MustNotContain, Count: r.Count, IgnoreComments: r.IgnoreComments, Why: r.Why})
	}
	return verify.Rules{Root: in.Dir, Rules: rules}, nil
}
