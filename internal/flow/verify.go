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
// the MLXBUILD_REPORT reports. A configuration that does not load is
// reported as the failed config check and returned as the configuration
// error. A build that cannot run (a toolchain too old for the fork) is the
// failed build check: the checks that read only sources still run and
// report, those that need the build are reported as not run, and the
// result is a failure.
func Verify(ctx context.Context, o Options, backend string) (*VerifyResult, error) {
	o = o.withDefaults()
	pr := o.printer()
	reports, err := verify.ReportsFromEnv(o.Env(verify.ReportEnv))
	if err != nil {
		return nil, fail.Configf("%v", err)
	}
	report := func(rs []verify.Result) error {
		verify.WriteText(o.Stdout, rs, pr.Color)
		return verify.WriteReports(reports, rs)
	}
	target := "verify:" + backend
	configResult := verify.Result{Check: "config", Status: verify.Pass, Reason: "spec and project file valid; " + backend + " selectable on " + o.GOOS}
	// The run is opened once, for the build and the checks alike, and
	// holds the build's lock until the checks ran, so no other build
	// changes what they read; it is nil when the configuration does not
	// load or select.
	r, err := open(ctx, o, buildRequest(target, backend))
	defer r.close()
	if r == nil {
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
	results := []verify.Result{configResult}
	var sum *Summary
	if err == nil {
		sum, err = r.build(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		// What the build needs failed, not what verify reads: report the
		// build as a failed check and run every check that can run.
		results = append(results, verify.Result{Check: "build", Status: verify.Fail, Reason: "the build did not run to the end",
			Findings: []verify.Finding{{Message: err.Error()}}})
		sum = nil
	}
	checks, err := r.checks(ctx, sum)
	if err != nil {
		return nil, err
	}
	results = append(results, verify.Run(ctx, checks)...)
	if err := report(results); err != nil {
		return nil, err
	}
	return &VerifyResult{Results: results, Failed: verify.Failed(results)}, nil
}

// checks builds the spec's list of checks from the project's declarations.
// With sum nil the build did not run: the checks that read a build (or the
// tree it materializes) are reported as not run, the others run.
func (p *Prepared) checks(ctx context.Context, sum *Summary) ([]verify.Check, error) {
	// The section was decoded and checked when the project file loaded.
	var decl configs.Verify
	pb := p.Config.Project.Backends[p.Backend]
	if pb != nil && pb.Verify != nil {
		decl = *pb.Verify
	}
	built := sum != nil
	notBuilt := func(name string) verify.Check {
		return verify.Fixed{Check: name, Status: verify.NotRun, Reason: "needs the build, which did not run (see the build check)"}
	}
	undeclared := func(name, what string) verify.Check {
		return verify.Fixed{Check: name, Status: verify.Skip, Reason: fmt.Sprintf("no %s declared (backends.%s.verify.%s in %s)", what, p.Backend, name, p.Config.Project.File)}
	}
	var pristine string
	if built {
		var err error
		if pristine, err = overlays.Pristine(ctx, p.Config.CacheRoot.Value, p.source()); err != nil {
			return nil, err
		}
	}
	// scoped resolves a check's scope and root; ok is false when the check
	// cannot run, and c then says why.
	scoped := func(name string, at configs.Pos, scope, root, def string) (dir string, c verify.Check, err error) {
		dir, err = p.scopeDir(name, at, scope, root, def)
		switch {
		case err != nil:
			return "", nil, err
		case dir == "":
			return "", verify.Fixed{Check: name, Status: verify.Skip, Reason: "the project declares no overlay for " + p.Backend}, nil
		case !built && (scope == "tree" || (scope == "" && def == "tree")):
			return "", notBuilt(name), nil
		}
		return dir, nil, nil
	}
	var checks []verify.Check
	add := func(c verify.Check, err error) error {
		if err == nil && c != nil {
			checks = append(checks, c)
		}
		return err
	}
	// source adds the check build makes over its resolved folder, or the
	// fixed result that stands in for it (no overlay, not built).
	source := func(name string, at configs.Pos, scope, root, def string, build func(dir string) verify.Check) error {
		dir, c, err := scoped(name, at, scope, root, def)
		if err == nil && c == nil {
			c = build(dir)
		}
		return add(c, err)
	}
	for _, name := range p.Spec.Verify {
		var err error
		switch name {
		case "config":
			// Reported by Verify itself: it is what let the build run.
		case "records":
			d := decl.Records
			if d == nil {
				d = &configs.VerifyRecords{}
			}
			err = source(name, d.Pos, d.Scope, d.Root, "overlay", func(dir string) verify.Check {
				c := verify.Records{Overlay: dir, Pin: p.Config.Project.Source.Pin, RequireStatus: d.RequireStatus}
				if pb != nil && pb.Fork != nil {
					c.BackendDirs = pb.Fork.Dirs
				}
				return c
			})
		case "integrity":
			if !built {
				err = add(notBuilt(name), nil)
				break
			}
			treeOv, terr := p.treeOverlay()
			if terr != nil {
				return nil, terr
			}
			err = add(verify.Integrity{Tree: p.Layout.Tree, Pristine: pristine, Overlay: overlayOrEmpty(treeOv, p.Layout.Dir), Records: p.Spec.Records, Require: true}, nil)
		case "kernel_keys":
			k := decl.KernelKeys
			if k == nil {
				// Undeclared, it reads the backend's own sources, the
				// overlay: the JIT-key rule needs no list to hold.
				err = source(name, configs.Pos{}, "", "", "overlay", func(dir string) verify.Check {
					return verify.KernelKeys{Root: dir, Exclude: p.withoutCache(dir, nil)}
				})
				break
			}
			err = source(name, k.Pos, k.Scope, k.Root, "overlay", func(dir string) verify.Check {
				return verify.KernelKeys{Root: dir, Include: k.Include, Exclude: p.withoutCache(dir, k.Exclude), Files: k.Files, Count: k.Count, Launches: k.Launches}
			})
		case "wave32":
			var at configs.Pos
			var scope, root string
			var c verify.Wave32
			if w := decl.Wave32; w != nil {
				at, scope, root, c.Include, c.Exclude = w.Pos, w.Scope, w.Root, w.Include, w.Exclude
			}
			err = source(name, at, scope, root, "overlay", func(dir string) verify.Check {
				c.Root, c.Exclude = dir, p.withoutCache(dir, c.Exclude)
				return c
			})
		case "hygiene":
			h := decl.Hygiene
			if h == nil {
				err = add(undeclared(name, "vendored/owned files"), nil)
				break
			}
			err = source(name, h.Pos, h.Scope, h.Root, "overlay", func(dir string) verify.Check {
				return verify.Hygiene{Root: dir, Vendored: h.Vendored, Owned: h.Owned, Header: h.Header, HeaderLines: h.HeaderLines, Notice: h.Notice}
			})
		case "kernel_ports":
			k := decl.KernelPorts
			if k == nil {
				err = add(undeclared(name, "launchers"), nil)
				break
			}
			err = source(name, k.Pos, k.Scope, k.Root, "repo", func(dir string) verify.Check {
				return verify.KernelPorts{Root: dir, Launchers: k.Launchers, Helpers: k.Helpers, Rust: k.Rust, Exclude: p.withoutCache(dir, k.Exclude)}
			})
		case "license_headers":
			l := decl.LicenseHeaders
			if l == nil {
				err = add(undeclared(name, "owned files"), nil)
				break
			}
			err = source(name, l.Pos, l.Scope, l.Root, "repo", func(dir string) verify.Check {
				return verify.LicenseHeaders{Root: dir, Files: l.Files, Vendored: l.Vendored, Exclude: p.withoutCache(dir, l.Exclude), Header: l.Header, HeaderLines: l.HeaderLines}
			})
		case "cross_refs":
			x := decl.CrossRefs
			if x == nil {
				err = add(undeclared(name, "files"), nil)
				break
			}
			err = source(name, x.Pos, x.Scope, x.Root, "repo", func(dir string) verify.Check {
				return verify.CrossRefs{Root: dir, Files: x.Files, Vendored: x.Vendored, Exclude: p.withoutCache(dir, cmpOr(x.Exclude, verify.DefaultCrossRefExcludes)), Upstream: x.Upstream, Repo: x.Repo}
			})
		case "isolation":
			if !built {
				err = add(notBuilt(name), nil)
				break
			}
			var foreign []string
			for _, other := range configs.Names {
				if other != p.Backend {
					foreign = append(foreign, overlaySources(p.Config, other)...)
				}
			}
			own, oerr := p.treeOverlay()
			if oerr != nil {
				return nil, oerr
			}
			err = add(verify.Isolation{CompileCommands: filepath.Join(p.Layout.Build, "compile_commands.json"), Tree: p.Layout.Tree, Foreign: foreign, Own: own, Pristine: pristine, Require: true}, nil)
		case "rules":
			if len(decl.Rules) == 0 {
				err = add(undeclared(name, "source rules"), nil)
				break
			}
			rules := make([]verify.Rule, 0, len(decl.Rules))
			for _, r := range decl.Rules {
				rules = append(rules, verify.Rule{Name: r.Name, Files: r.Files, Exclude: r.Exclude, MustContain: r.MustContain,
					MustNotContain: r.MustNotContain, Count: r.Count, IgnoreComments: r.IgnoreComments, Why: r.Why})
			}
			var at configs.Pos
			var scope, root string
			if r := decl.RulesScope; r != nil {
				at, scope, root = r.Pos, r.Scope, r.Root
			}
			err = source(name, at, scope, root, "tree", func(dir string) verify.Check {
				return verify.Rules{Root: dir, Rules: rules}
			})
		case "link":
			if !built {
				err = add(notBuilt(name), nil)
				break
			}
			err = add(p.linkCheck(ctx, decl))
		case "gpu_code":
			if !built {
				err = add(notBuilt(name), nil)
				break
			}
			err = add(p.gpuCodeCheck(), nil)
		}
		if err != nil {
			return nil, err
		}
	}
	return checks, nil
}

// withoutCache adds to a check's excludes the cache folder when it lies
// inside dir (the built-in target/mlxbuild beside the project file): a
// check over the repository reads the project's sources, not the trees
// mlxbuild materialized.
func (p *Prepared) withoutCache(dir string, exclude []string) []string {
	rel, err := filepath.Rel(dir, p.Config.CacheRoot.Value)
	if err != nil || !filepath.IsLocal(rel) {
		return exclude
	}
	return append(append([]string{}, exclude...), filepath.ToSlash(rel)+"/**")
}

// cmpOr is list, or def when the project gave none.
func cmpOr(list, def []string) []string {
	if list == nil {
		return def
	}
	return list
}

// scopeDir resolves a check's folder: root inside the scope (default def):
// the backend's overlay, its tree, or the repository (the project file's
// folder). It returns "" when the scope is an overlay the backend lacks.
func (p *Prepared) scopeDir(check string, at configs.Pos, scope, root, def string) (string, error) {
	if scope == "" {
		scope = def
	}
	var base string
	switch scope {
	case "overlay":
		base = p.Config.Overlay(p.Backend)
		if base == "" {
			return "", nil
		}
	case "tree":
		base = p.Layout.Tree
	case "repo":
		base = p.Config.Project.Abs(".")
	default:
		return "", fail.Configf("%s: backends.%s.verify.%s.scope is %q; use overlay, tree or repo", at, p.Backend, check, scope)
	}
	if root == "" {
		return base, nil
	}
	if filepath.IsAbs(root) || !filepath.IsLocal(filepath.FromSlash(root)) {
		return "", fail.Configf("%s: backends.%s.verify.%s.root %q must be a folder inside the %s, written relative to it", at, p.Backend, check, root, scope)
	}
	return filepath.Join(base, filepath.FromSlash(root)), nil
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

// gpuCodeCheck compares the code objects in the plan's archives with the
// architectures the plan (link.json, cargo.txt) gives the consumer.
func (p *Prepared) gpuCodeCheck() verify.Check {
	if p.Spec.Architectures == nil || p.Spec.Architectures.RustcEnv == "" {
		return verify.Fixed{Check: "gpu_code", Status: verify.Skip, Reason: fmt.Sprintf("the %s spec records no architectures in the link plan (architectures.rustc_env)", p.Backend)}
	}
	return verify.GPUCode{LinkPlan: filepath.Join(p.Layout.Out, "link.json"), Backend: p.Backend,
		ArchEnv: p.Spec.Architectures.RustcEnv, Env: p.Opts.Env}
}
