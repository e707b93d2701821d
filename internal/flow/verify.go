package flow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/verify"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// VerifyResult is verify's outcome; Failed decides the exit status.
type VerifyResult struct {
	Results []verify.Result
	Failed  bool
}

// Verify builds the backend (incrementally: a no-op when up to date) and
// runs the checks its spec lists, printing one line per check and writing
// MLXBUILD_REPORT when set. A configuration that does not load is reported
// as the failed config check and returned as the configuration error.
func Verify(ctx context.Context, o Options, backend string) (*VerifyResult, error) {
	o = o.withDefaults()
	pr := o.printer()
	kind, reportPath, err := verify.ReportFromEnv(o.Env(verify.ReportEnv))
	if err != nil {
		return nil, fail.Configf("%v", err)
	}
	report := func(rs []verify.Result) error {
		verify.WriteText(o.Stdout, rs, pr.Color)
		if kind != "" {
			if err := verify.WriteReport(kind, reportPath, rs); err != nil {
				return err
			}
		}
		return nil
	}
	configResult := verify.Result{Check: "config", Status: verify.Pass, Reason: "spec and project file valid; " + backend + " selectable on " + o.GOOS}
	sum, p, err := build(ctx, o, "verify:"+backend, backend)
	if err != nil {
		if fail.KindOf(err) == fail.Config {
			configResult.Status = verify.Fail
			configResult.Reason = "the configuration does not load"
			configResult.Findings = []verify.Finding{{Message: err.Error(), Fix: "fix the file and line named, then run verify again"}}
			if rerr := report([]verify.Result{configResult}); rerr != nil {
				return nil, rerr
			}
		}
		return nil, err
	}
	checks, err := p.checks(ctx, sum)
	if err != nil {
		return nil, err
	}
	results := append([]verify.Result{configResult}, verify.Run(ctx, checks)...)
	if err := report(results); err != nil {
		return nil, err
	}
	return &VerifyResult{Results: results, Failed: verify.Failed(results)}, nil
}

// checks builds the spec's list of checks from the project's declarations.
func (p *Prepared) checks(ctx context.Context, sum *Summary) ([]verify.Check, error) {
	// The section was decoded and checked when the project file loaded.
	var decl configs.Verify
	if pb := p.Config.Project.Backends[p.Backend]; pb != nil && pb.Verify != nil {
		decl = *pb.Verify
	}
	overlay := p.Config.Overlay(p.Backend)
	pristine, err := overlays.Pristine(ctx, p.Config.CacheRoot.Value, p.source())
	if err != nil {
		return nil, err
	}
	var checks []verify.Check
	for _, name := range p.Spec.Verify {
		switch name {
		case "config":
			// Reported by Verify itself: it is what let the build run.
		case "records":
			if overlay == "" {
				checks = append(checks, skipped{"records", "the project declares no overlay for " + p.Backend})
				continue
			}
			c := verify.Records{Overlay: overlay, Pin: p.Config.Project.Source.Pin}
			if decl.Records != nil {
				c.RequireStatus = decl.Records.RequireStatus
			}
			checks = append(checks, c)
		case "integrity":
			checks = append(checks, verify.Integrity{Tree: p.Layout.Tree, Pristine: pristine, Overlay: overlayOrEmpty(overlay, p.Layout.Dir), Records: p.Spec.Records, Require: true})
		case "kernel_keys":
			if decl.KernelKeys == nil || overlay == "" {
				checks = append(checks, skipped{"kernel_keys", fmt.Sprintf("no scope declared (backends.%s.verify.kernel_keys in %s)", p.Backend, p.Config.Project.File)})
				continue
			}
			k := decl.KernelKeys
			checks = append(checks, verify.KernelKeys{Root: overlay, Include: k.Include, Exclude: k.Exclude, Files: k.Files, Count: k.Count})
		case "wave32":
			if overlay == "" {
				checks = append(checks, skipped{"wave32", "the project declares no overlay for " + p.Backend})
				continue
			}
			c := verify.Wave32{Root: overlay}
			if decl.Wave32 != nil {
				c.Include, c.Exclude = decl.Wave32.Include, decl.Wave32.Exclude
			}
			checks = append(checks, c)
		case "hygiene":
			if decl.Hygiene == nil || overlay == "" {
				checks = append(checks, skipped{"hygiene", fmt.Sprintf("no vendored/owned files declared (backends.%s.verify.hygiene)", p.Backend)})
				continue
			}
			h := decl.Hygiene
			checks = append(checks, verify.Hygiene{Root: overlay, Vendored: h.Vendored, Owned: h.Owned, Header: h.Header, HeaderLines: h.HeaderLines, Notice: h.Notice})
		case "isolation":
			var foreign []string
			for _, other := range configs.Names {
				if other != p.Backend {
					if ov := p.Config.Overlay(other); ov != "" {
						foreign = append(foreign, ov)
					}
				}
			}
			checks = append(checks, verify.Isolation{CompileCommands: filepath.Join(p.Layout.Build, "compile_commands.json"), Tree: p.Layout.Tree, Foreign: foreign, Pristine: pristine, Require: true})
		case "rules":
			if len(decl.Rules) == 0 {
				checks = append(checks, skipped{"rules", fmt.Sprintf("no source rules declared (backends.%s.verify.rules)", p.Backend)})
				continue
			}
			rules := make([]verify.Rule, 0, len(decl.Rules))
			for _, r := range decl.Rules {
				rules = append(rules, verify.Rule{Name: r.Name, Files: r.Files, Exclude: r.Exclude, MustContain: r.MustContain,
					MustNotContain: r.MustNotContain, Count: r.Count, IgnoreComments: r.IgnoreComments, Why: r.Why})
			}
			checks = append(checks, verify.Rules{Root: p.Layout.Tree, Rules: rules})
		case "link":
			c, err := p.linkCheck(ctx, decl)
			if err != nil {
				return nil, err
			}
			checks = append(checks, c)
		}
	}
	return checks, nil
}

// overlayOrEmpty gives integrity an empty overlay directory when the
// backend has none, so the tree must equal pristine alone.
func overlayOrEmpty(overlay, scratch string) string {
	if overlay != "" {
		return overlay
	}
	empty := filepath.Join(scratch, "empty-overlay")
	_ = os.MkdirAll(empty, 0o755)
	return empty
}

// linkCheck links a probe program with the link plan's ldflags.txt, with
// --no-as-needed so every planned library lands in NEEDED, and checks it
// (and any consumer binaries the project names) with the loader's rules.
func (p *Prepared) linkCheck(ctx context.Context, decl configs.Verify) (verify.Check, error) {
	plan, err := p.linkPlan()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(p.Layout.Out, "link-probe")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "probe.cpp")
	if err := atomicfile.Write(src, []byte("// Linked by verify: every library of the link plan must load.\nint main() { return 0; }\n"), 0o644); err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "probe")
	cxx := p.Opts.Env("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	args := []string{src, "-o", exe, "-Wl,--no-as-needed"}
	args = append(args, strings.Fields(plan.Ldflags())...)
	if _, err := proc.Run(ctx, proc.Cmd{Path: cxx, Args: args}); err != nil {
		return nil, fmt.Errorf("linking the probe program with %s/ldflags.txt failed: %w", p.Layout.Out, err)
	}
	needed := make([]string, 0, len(plan.Dynamic))
	for _, l := range plan.Dynamic {
		needed = append(needed, "lib"+l+".so")
	}
	c := verify.Link{Files: []string{exe}, Needed: needed, Runpath: plan.RunPaths, Require: true}
	if decl.Link != nil {
		for _, f := range decl.Link.Files {
			c.Files = append(c.Files, p.Config.Project.Abs(f))
		}
		c.Needed = append(c.Needed, decl.Link.Needed...)
		c.Runpath = append(c.Runpath, decl.Link.Runpath...)
	}
	return c, nil
}

// skipped is a check that cannot apply, with the reason.
type skipped struct{ name, reason string }

func (s skipped) Name() string { return s.name }
func (s skipped) Run(context.Context) verify.Result {
	return verify.Result{Check: s.name, Status: verify.Skip, Reason: s.reason}
}
