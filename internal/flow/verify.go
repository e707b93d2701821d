package flow

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/cache"
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
		return verify.WriteReports(ctx, reports, rs)
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
	// Checks a stop left unrun are skipped, which is no failure: the gate
	// must not pass a run that was stopped.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s stopped before its checks ran to the end: %w", target, err)
	}
	return &VerifyResult{Results: results, Failed: verify.Failed(results)}, nil
}

// checks builds the spec's list of checks from the project's declarations,
// each as its entry of configs.VerifyChecks says: where it reads, whether
// it needs the build, what must be declared for it to run. With sum nil the
// build did not run: the checks that read a build (or the tree it
// materializes) are reported as not run, the others run.
func (p *Prepared) checks(ctx context.Context, sum *Summary) ([]verify.Check, error) {
	// The section was decoded and checked when the project file loaded.
	in := CheckInput{Built: sum != nil}
	if pb := p.Config.Project.Backends[p.Backend]; pb != nil && pb.Verify != nil {
		in.Decl = *pb.Verify
	}
	if in.Built {
		var err error
		if in.Pristine, err = overlays.Pristine(ctx, p.Config.CacheRoot.Value, p.source()); err != nil {
			return nil, err
		}
	}
	var checks []verify.Check
	for _, name := range p.Spec.Verify {
		entry, ok := configs.VerifyCheckNamed(name)
		mk, made := checkMakers[name]
		if !ok || !made {
			return nil, fmt.Errorf("verify: the %s spec names the check %q, which mlxbuild does not make; this is a bug in mlxbuild (every check of configs.VerifyChecks needs a maker)", p.Backend, name)
		}
		if mk == nil {
			continue // config: reported by Verify itself, it is what let the build run
		}
		c, err := p.check(ctx, entry, in, mk)
		if err != nil {
			return nil, err
		}
		if c.Name() != name {
			return nil, fmt.Errorf("verify: the check made for %q calls itself %q; this is a bug in mlxbuild", name, c.Name())
		}
		checks = append(checks, c)
	}
	return checks, nil
}

// check makes one check, or the fixed result that stands in for it: not
// declared, no overlay to read, or not run because the build did not.
func (p *Prepared) check(ctx context.Context, entry configs.VerifyCheck, in CheckInput, mk CheckMaker) (verify.Check, error) {
	name := entry.Name
	notBuilt := verify.Fixed{Check: name, Status: verify.NotRun, Reason: "needs the build, which did not run (see the build check)"}
	if entry.Undeclared != "" && !in.Decl.Declares(entry.Section) {
		return verify.Fixed{Check: name, Status: verify.Skip, Reason: fmt.Sprintf("no %s declared (backends.%s.verify.%s in %s)", entry.Undeclared, p.Backend, entry.Section, p.Config.Project.File)}, nil
	}
	if entry.NeedsBuild && !in.Built {
		return notBuilt, nil
	}
	if entry.Scope != "" {
		f := in.Decl.Folder(entry.Folder)
		dir, err := p.scopeDir(name, f.Pos, f.Scope, f.Root, entry.Scope)
		switch {
		case err != nil:
			return nil, err
		case dir == "":
			return verify.Fixed{Check: name, Status: verify.Skip, Reason: "the project declares no overlay for " + p.Backend}, nil
		case !in.Built && cmp.Or(f.Scope, entry.Scope) == "tree":
			return notBuilt, nil
		}
		in.Dir = dir
	}
	return mk(ctx, p, in)
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

// overlayOrEmpty gives integrity an empty overlay directory in the
// backend's cache directory when the backend has none, so the tree must
// equal pristine alone. A planted link there is not followed: integrity
// then reads no overlay folder, and fails saying so.
func overlayOrEmpty(overlay string, l cache.Layout) string {
	if overlay != "" {
		return overlay
	}
	empty := filepath.Join(l.Dir, "empty-overlay")
	if l.CheckFolder(empty) == nil {
		_ = os.MkdirAll(empty, 0o755)
	}
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
	if err := p.Layout.CheckFolder(dir); err != nil {
		return nil, err
	}
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
	args = append(args, plan.LdflagArgs()...)
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
