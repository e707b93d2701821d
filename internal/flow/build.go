package flow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/ui"
	"github.com/mlxbuild/mlxbuild/overlays"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Summary is what one build did, for the closing lines and for tests.
type Summary struct {
	Backend      string
	Arch         string // ";"-joined, "" for cpu
	ArchSource   string
	Materialize  overlays.Stats
	Reconfigured bool
	Why          []string // the stamp changes that caused work; empty = up to date
	Steps        int      // compile and link steps Ninja ran
	Phases       []Phase
	Out          string // the link plan directory
	Relink       string // cargo.txt's watched output (see markRelink)
	LogPath      string
	Notes        []string
	// LauncherTool is the compiler launcher used ("" for none) and
	// Launcher its hits and misses in this build.
	LauncherTool string
	Launcher     *compilecache.Stats
	// Bound is how close Ninja's run came to its lower bound, and
	// Ordered whether it ran the longest chains first.
	Bound   cmake.Bound
	Ordered bool
}

// Phase is one timed part of the build.
type Phase struct {
	Name string
	Took time.Duration
}

// Build builds one backend: the run opened (configuration, selection,
// toolchain, architectures, lock), the tree materialized, the one decision
// made, CMake and Ninja run where it says, the link plan and the stamp
// written, the run closed.
func Build(ctx context.Context, o Options, backend string) (*Summary, error) {
	return buildAs(ctx, o, "build:"+backend, backend)
}

// buildAs is Build for a target that chooses its backend otherwise
// (build:cargo, from the crate's features: backend "").
func buildAs(ctx context.Context, o Options, target, backend string) (*Summary, error) {
	r, err := open(ctx, o, buildRequest(target, backend))
	defer r.close()
	if err != nil {
		return nil, err
	}
	return r.build(ctx)
}

// buildRequest is what a build asks of its run's opening.
func buildRequest(target, backend string) request {
	return request{target: target, backend: backend, resolve: true, build: true, lock: true}
}

// build is the build of an opened run, which verify's checks then read.
func (r *run) build(ctx context.Context) (*Summary, error) {
	p, o := r.Prepared, r.Opts
	pr := o.printer()
	sum := &Summary{Backend: p.Backend, Out: p.Layout.Out, LogPath: p.Layout.Log, Relink: p.Layout.Relink}
	if p.Arch != nil {
		sum.Arch, sum.ArchSource = p.archList, p.Arch.Source
	}
	sum.Phases = append(sum.Phases, Phase{"prepare", time.Since(r.opened)})
	if _, err := r.purgeOldPin(); err != nil {
		return nil, err
	}
	// When nothing is to be redone, say nothing until something is: a
	// no-op is one line, as cargo's and Ninja's are (-v for the details).
	// Steps are held back until the decision (made once the tree and its
	// dependencies are known, below) says whether anything is to be redone.
	quiet := !o.verbose()
	var held [][]any
	step := func(format string, args ...any) { held = append(held, append([]any{format}, args...)) }
	if !quiet {
		step = pr.Step
	}
	speak := func() {
		quiet, step = false, pr.Step
		for _, h := range held {
			pr.Step(h[0].(string), h[1:]...)
		}
		held = nil
	}

	t := time.Now()
	step("source: %s", p.pinLabel())
	stats, files, err := p.materialize(ctx)
	if err != nil {
		return nil, err
	}
	sum.Materialize = stats
	if p.layers() == nil {
		// Materialize checked every overlay file against its recorded
		// identity (and read those that changed): the stamp takes its
		// hashes instead of reading the overlay once more.
		p.overlaySums.files, p.overlaySums.err, p.overlaySums.done = files.manifest.OverlayFiles(), nil, true
	}
	for _, rel := range stats.HandEdited {
		pr.Warn("%s", files.restoredNote(rel))
	}
	if quiet && stats.Written+stats.Restored+stats.Removed+stats.Touched+stats.Dependents > 0 {
		speak() // the tree changed under a stamp that did not
	}
	step("tree %s: %d written, %d restored, %d removed, %d touched, %d unchanged", p.Layout.Tree, stats.Written, stats.Restored, stats.Removed, stats.Touched, stats.Unchanged)

	// The dependencies the tree declares must all be provided before
	// CMake runs: it may not download them itself. Where each comes from
	// is a stamp input: the decision is made once they are known.
	nw := len(p.Warnings)
	if err := p.resolveDeps(p.Layout.Tree); err != nil {
		return nil, err
	}
	if p.DepsErr != nil {
		return nil, p.DepsErr
	}
	for _, w := range p.Warnings[nw:] {
		pr.Warn("%s", w)
	}
	d, err := r.decide(pr.Warn)
	if err != nil {
		return nil, err
	}
	sum.Why = d.Why
	if quiet && (len(d.Why) > 0 || d.Configure) {
		speak() // something is to be redone
	}
	sum.Phases = append(sum.Phases, Phase{"materialize", time.Since(t)})
	if !d.Configure && sum.noop() {
		if done, err := p.finishNoop(ctx, r.check, d, sum, step, pr.Warn); done || err != nil {
			if err == nil && quiet {
				pr.Done("%s is up to date (no input changed; Ninja had nothing to do)", sum.Backend)
			} else if err == nil {
				printSummary(pr, sum)
			}
			return sum, err
		}
	}
	t = time.Now()
	expect := d.expect // what CMake's cache must hold once Ninja ran
	if d.Configure {
		// The spec's default list decides what a configure compiles for;
		// a no-op compiles nothing for it, so only here is it said.
		if note := p.archDefaultNote(arch.Building); note != "" {
			pr.Warn("%s", note)
		}
		// A target the toolchain cannot compile refuses the build before
		// anything of the configure is said or done.
		if err := p.checkArchSupport(); err != nil {
			return nil, err
		}
		if d.Scratch {
			pr.Step("configure from scratch (%s)", d.ConfigureWhy)
		} else {
			pr.Step("configure (%s)", d.ConfigureWhy)
		}
		if expect, err = p.configure(ctx, d, files); err != nil {
			return nil, err
		}
		p.warnConfigure(p.Layout.Log+".configure", files, pr.Warn)
		p.completeCompileDB(ctx, pr.Warn)
		sum.Reconfigured = true
	}
	sum.Phases = append(sum.Phases, Phase{"configure", time.Since(t)})

	t = time.Now()
	jobs, err := p.jobs()
	if err != nil {
		return nil, err
	}
	release := func() {}
	if o.jobSlots != nil {
		jobs, release = o.jobSlots(jobs, pr.Warn)
	}
	step("build with %s", plural.Count(jobs, "job"))
	lc, lenv := d.launcher, d.lenv
	if err := p.installLauncher(); err != nil {
		release()
		return nil, err
	}
	if err := lc.ZeroStats(ctx, lenv); err != nil {
		pr.Warn("%v", err)
	}
	res, err := cmake.Build(ctx, cmake.BuildOptions{
		Dir: p.Layout.Build, Jobs: jobs, Progress: o.Stderr, TTY: pr.TTY, Width: ui.Width(o.Stderr), LogPath: p.Layout.Log, Env: lenv, Source: p.Layout.Tree,
		Durations: p.expectedDurations(pr.Warn),
	})
	release()                         // Ninja is done, failed or interrupted: its jobs' tokens go back
	p.completeCompileDB(ctx, pr.Warn) // Ninja may have regenerated, failed build or not
	if lc != nil {
		sum.LauncherTool = lc.Tool
		if st, serr := lc.Stats(ctx, lenv); serr == nil {
			sum.Launcher = &st
		} else {
			pr.Warn("%v", serr)
		}
	}
	if err != nil {
		var be *cmake.BuildError
		if errors.As(err, &be) {
			fix := "fix that error, then run the build again"
			if where := files.where(res.Errors); where != "" {
				fix = where + "; then run the build again"
			}
			return nil, fail.WithFix(fmt.Errorf("the %s build failed: %w", p.Backend, err), fix)
		}
		return nil, err
	}
	// Ninja re-runs CMake when a CMake file changed: what it left must
	// still be this build's.
	if err := p.checkCache(expect); err != nil {
		return nil, err
	}
	sum.Steps = res.Steps
	if res.Steps > 0 {
		sum.Bound, sum.Ordered = res.Bound, res.Ordered
		p.recordDurations(pr.Warn)
	}
	sum.Phases = append(sum.Phases, Phase{"build", time.Since(t)})

	t = time.Now()
	plan, err := p.linkPlan()
	if err != nil {
		return nil, err
	}
	sum.Notes = plan.Notes
	if err := writeLinkPlan(p.Layout, plan); err != nil {
		return nil, err
	}
	if res.Steps > 0 {
		if err := markRelink(p.Layout, true); err != nil {
			return nil, err
		}
	}
	if err := cache.WriteStamp(p.Layout.Stamp, d.cur); err != nil {
		return nil, err
	}
	sum.Phases = append(sum.Phases, Phase{"link plan", time.Since(t)})
	if quiet && sum.noop() {
		pr.Done("%s is up to date (no input changed; Ninja had nothing to do)", sum.Backend)
	} else {
		if quiet {
			speak() // Ninja found work the decision did not: show what led to it
		}
		printSummary(pr, sum)
	}
	return sum, nil
}

// configure runs CMake's configure step on the tree, in an emptied build
// directory when the decision says so, and returns the entries CMake's
// cache must hold after it (it refuses a cache that does not). What it
// configures with is recorded before it starts and marked done after it
// succeeded, so a configure or build that fails or is killed leaves a
// record the next run's decision does not trust (see cache.Decide). The
// caller has checked the toolchain compiles every target (checkArchSupport;
// configureOptions asks again, from a memo, for apiDrift's scratch builds).
func (p *Prepared) configure(ctx context.Context, d *decision, files *userFiles) (map[string]string, error) {
	if d.Scratch {
		if err := cache.ClearBuild(p.Layout); err != nil {
			return nil, err
		}
	}
	opts, err := p.configureOptions(ctx, d)
	if err != nil {
		return nil, err
	}
	record := d.Record
	record.Done = false
	if err := cache.WriteConfigureRecord(p.Layout.Build, record); err != nil {
		return nil, err
	}
	log, err := os.Create(p.Layout.Log + ".configure")
	if err != nil {
		return nil, err
	}
	opts.Log = log
	expect, err := cmake.CacheEntries(opts)
	if err != nil {
		log.Close()
		return nil, err
	}
	err = cmake.Configure(ctx, opts)
	log.Close()
	if err != nil {
		return nil, files.configureFailed(p.Backend, err, log.Name())
	}
	// The record stays not done when the cache is refused: the next run
	// configures again.
	if err := p.checkCache(expect); err != nil {
		return nil, err
	}
	record.Done = true
	return expect, cache.WriteConfigureRecord(p.Layout.Build, record)
}

// source is the project's source with paths resolved against the project
// file's directory; URLs stay as they are.
func (p *Prepared) source() overlays.Source {
	s := p.Config.Project.Source
	git := s.Git
	if git != "" && !isURL(git) {
		git = p.Config.Project.Abs(git)
	}
	return overlays.Source{Git: git, Pin: s.Pin, Dir: p.Config.Project.Abs(s.Dir)}
}

func isURL(s string) bool {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ':':
			return i > 1 && i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/'
		case !(s[i] >= 'a' && s[i] <= 'z' || s[i] == '+' || s[i] == '-'):
			return false
		}
	}
	return false
}

// jobs is MLXBUILD_JOBS when set, else what the machine's cores and memory
// allow for the spec's memory per job.
func (p *Prepared) jobs() (int, error) {
	if p.Config.Jobs.Value != "" {
		return strconv.Atoi(p.Config.Jobs.Value)
	}
	return cmake.DefaultJobs(p.Spec.Jobs.MemoryPerJobGiB), nil
}

func (p *Prepared) linkPlan() (*linkplan.Plan, error) { return p.planLink(false) }

// planLink makes the link plan; skipStatic leaves out the archives the
// build has not produced yet.
func (p *Prepared) planLink(skipStatic bool) (*linkplan.Plan, error) {
	var targets []string
	if p.Arch != nil {
		targets = p.Arch.Targets
	}
	rerun := []string{p.Config.Project.File}
	rerun = append(rerun, p.overlaySources()...)
	if pb := p.Config.Project.Backends[p.Backend]; pb != nil && pb.Spec != "" {
		rerun = append(rerun, p.Config.Project.Abs(pb.Spec))
	}
	// A checkout used as it is (source.dir) is edited in place: a build
	// script that watches it rebuilds MLX on `cargo build` after an edit.
	// A pinned git source changes only with the pin, in the project file.
	if d := p.Config.Project.Source.Dir; d != "" {
		rerun = append(rerun, p.Config.Project.Abs(d))
	}
	in := backends.LinkInputs{
		GOOS: p.Opts.GOOS, Backend: p.Backend, BuildDir: p.Layout.Build, Toolchain: p.Toolchain,
		TreeDir: p.Layout.Tree, OutDir: p.Layout.Out,
		Architectures: targets, Pin: p.Config.Project.Source.Pin, TreeFingerprint: p.treeFingerprint, Libs: p.libLookup(), RerunPaths: rerun, Relink: p.Layout.Relink,
		SkipStatic: skipStatic, CompileOnly: p.compileOnly, Produced: producedBy(p.Layout.Build),
	}
	// Before the build the standard is not needed (the libraries are
	// checked, not rendered), and the configure to come rewrites it; a
	// check-only run renders it.
	if !skipStatic || p.compileOnly {
		std, err := p.buildCXXStd()
		if err != nil {
			return nil, err
		}
		in.BuildStd, in.BuildStdFrom = std.Std, std.From
	}
	return backends.PlanLink(p.linkSpec(), in)
}
