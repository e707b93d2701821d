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

// checkDef is one verify check: its entry (name, project-file section
// and folder, default scope, whether it needs the build: see
// configs.VerifyCheck) beside its maker.
type checkDef struct {
	entry configs.VerifyCheck
	make  CheckMaker
}

// builtinChecks are verify's checks, each one line, in the order a spec's
// verify: list is checked against and named in messages. go generate
// ./configs copies their entries into configs (builtin_gen.go), which
// validates the specs without this package; TestConfigsCopiesTheBuiltinChecks
// keeps that copy true. config's maker is nil: Verify reports it.
var builtinChecks = []checkDef{
	{configs.VerifyCheck{Name: "config"}, nil},
	{configs.VerifyCheck{Name: "records", Section: "records", Folder: "records", Scope: "overlay"}, recordsCheck},
	{configs.VerifyCheck{Name: "integrity", NeedsBuild: true}, integrityCheck},
	// Undeclared, kernel_keys reads the backend's own sources, the overlay:
	// the JIT-key rule needs no list to hold.
	{configs.VerifyCheck{Name: "kernel_keys", Section: "kernel_keys", Folder: "kernel_keys", Scope: "overlay"}, kernelKeysCheck},
	{configs.VerifyCheck{Name: "wave32", Section: "wave32", Folder: "wave32", Scope: "overlay"}, wave32Check},
	{configs.VerifyCheck{Name: "hygiene", Section: "hygiene", Folder: "hygiene", Scope: "overlay", Undeclared: "vendored/owned files"}, hygieneCheck},
	{configs.VerifyCheck{Name: "kernel_ports", Section: "kernel_ports", Folder: "kernel_ports", Scope: "repo", Undeclared: "launchers"}, kernelPortsCheck},
	{configs.VerifyCheck{Name: "license_headers", Section: "license_headers", Folder: "license_headers", Scope: "repo", Undeclared: "owned files"}, licenseHeadersCheck},
	{configs.VerifyCheck{Name: "cross_refs", Section: "cross_refs", Folder: "cross_refs", Scope: "repo", Undeclared: "files"}, crossRefsCheck},
	{configs.VerifyCheck{Name: "isolation", NeedsBuild: true}, isolationCheck},
	{configs.VerifyCheck{Name: "rules", Section: "rules", Folder: "rules_scope", Scope: "tree", Undeclared: "source rules"}, rulesCheck},
	{configs.VerifyCheck{Name: "link", Section: "link", NeedsBuild: true}, func(ctx context.Context, p *Prepared, in CheckInput) (verify.Check, error) {
		return p.linkCheck(ctx, in.Decl)
	}},
	{configs.VerifyCheck{Name: "gpu_code", NeedsBuild: true}, func(_ context.Context, p *Prepared, _ CheckInput) (verify.Check, error) { return p.gpuCodeCheck(), nil }},
}

// BuiltinVerifyChecks are the entries of verify's built-in checks, for go
// generate ./configs.
func BuiltinVerifyChecks() []configs.VerifyCheck {
	entries := make([]configs.VerifyCheck, len(builtinChecks))
	for i, c := range builtinChecks {
		entries[i] = c.entry
	}
	return entries
}

// checkMakers has a maker for every check of configs.VerifyChecks
// (TestEveryVerifyCheckHasAMaker).
var checkMakers = func() map[string]CheckMaker {
	m := map[string]CheckMaker{}
	for _, c := range builtinChecks {
		m[c.entry.Name] = c.make
	}
	return m
}()

// RegisterCheck adds a check to verify from one file: its entry to the
// table a spec's verify: list is validated against, and its maker here.
func RegisterCheck(entry configs.VerifyCheck, mk CheckMaker) error {
	if err := configs.AddVerifyCheck(entry); err != nil {
		return err
	}
	checkMakers[entry.Name] = mk
	return nil
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
