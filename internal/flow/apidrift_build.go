package flow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"
)

// driftBuild builds the overlay on one pin after another.
type driftBuild struct {
	p        *Prepared
	upstream string
	progress io.Writer
}

// buildOutcome is one scratch build of the overlay at a pin.
type buildOutcome struct {
	dir, tree, build, log string
	// configureError is CMake's first error, one line, when the tree did
	// not configure; nothing else is set then.
	configureError string
	// buildFailed: Ninja failed; unparsed: and no error could be read from
	// its log or the direct compiles'.
	buildFailed, unparsed bool
	errors                []FileErrors
	units, failedUnits    int
	failedSources         map[string]bool // tree-relative sources of the units that failed
	missing               []Symbol
	missingSet            map[string]bool
	defined               map[string]string // symbol -> the source whose object defines it
	linked                bool
}

// scratch is p with its layout moved to a scratch build directory: the tree,
// the build directory and every helper file a configure writes (toolchain
// prefix, dependency provider, launch script, launcher) under dir, so the
// backend's own build is not touched; its own copy of what resolving the
// dependencies changes.
func (p *Prepared) scratch(dir string) *Prepared {
	q := *p
	l := p.Layout
	l.Dir, l.Tree, l.Build = dir, filepath.Join(dir, "tree"), filepath.Join(dir, "build")
	l.Manifest, l.Declared, l.Lock = filepath.Join(dir, "manifest"), filepath.Join(dir, "tree.declared"), filepath.Join(dir, "lock")
	l.Log, l.HIPPrefix, l.DepsProvider = filepath.Join(dir, "build.log"), filepath.Join(dir, "hip-prefix"), filepath.Join(dir, "deps-provider.cmake")
	l.Launch = filepath.Join(dir, "launch.cmake")
	q.Layout = l
	q.Defines = maps.Clone(p.Defines)
	q.Deps, q.DepsErr, q.CMakeEnv, q.treeKey = nil, nil, nil, ""
	q.Warnings = slices.Clone(p.Warnings)
	return &q
}

// at builds the overlay at pin; with pre, the overlay as it was before the
// retarget those pre-images were kept by (see baselineOverlay).
func (b *driftBuild) at(ctx context.Context, pin string, pre *forksync.Preimages) (*buildOutcome, error) {
	root := b.p.Config.CacheRoot.Value
	dir := filepath.Join(root, "apidrift", b.p.Backend, shortID(pin))
	q := b.p.scratch(dir)
	out := &buildOutcome{dir: dir, tree: q.Layout.Tree, build: q.Layout.Build, log: q.Layout.Log, missingSet: map[string]bool{}, defined: map[string]string{}, failedSources: map[string]bool{}}
	if err := cache.EnsureRoot(root); err != nil {
		return nil, err
	}
	if err := cache.CheckFolder(root, dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("overlay apiDrift: creating %s: %w; make the cache directory writable or set MLXBUILD_CACHE", dir, err)
	}
	unlock, err := cache.Lock(ctx, q.Layout.Lock, nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	pristine, err := overlays.Pristine(ctx, root, overlays.Source{Git: b.upstream, Pin: pin})
	if err != nil {
		return nil, err
	}
	overlay := q.Config.Overlay(q.Backend)
	if pre != nil {
		// Copies that keep their mtimes: the materializer takes a newer
		// mtime with the same content for a touch and recompiles.
		view := filepath.Join(dir, "overlay")
		if err := pre.OverlayView(overlay, view); err != nil {
			return nil, err
		}
		overlay = view
	}
	// Materialize marks the HIP sources whose headers changed since the
	// last run, as build:rocm's does: the fork's HIP compiles have no
	// depfile, and the scratch build is kept between runs.
	if _, _, err := overlays.Materialize(pristine, overlay, q.Layout.Tree, q.Layout.Manifest, q.Spec.Records); err != nil {
		return nil, err
	}
	// The same dependencies, launcher and toolchain set-up as the
	// backend's build: CMake downloads nothing here either.
	if err := q.resolveDeps(q.Layout.Tree); err != nil {
		return nil, err
	}
	if q.DepsErr != nil {
		return nil, q.DepsErr
	}
	lc, ldefs, lenv, err := q.launcherSetup(dir, q.Opts.printer().Warn)
	if err != nil {
		return nil, err
	}
	opts, err := q.configureOptions(ctx, &decision{launcher: lc, ldefs: ldefs, lenv: lenv})
	if err != nil {
		return nil, err
	}
	clog, err := os.Create(q.Layout.Log + ".configure")
	if err != nil {
		return nil, err
	}
	opts.Log = clog
	err = cmake.Configure(ctx, opts)
	clog.Close()
	if err != nil {
		out.configureError = configureVerdict(err, dir, clog.Name())
		return out, nil
	}
	if err := q.installLauncher(); err != nil {
		return nil, err
	}
	jobs, err := q.jobs()
	if err != nil {
		return nil, err
	}
	_, err = cmake.Build(ctx, cmake.BuildOptions{Dir: q.Layout.Build, Jobs: jobs, KeepGoing: true, LogPath: out.log, Progress: b.progress, Env: lenv, Source: q.Layout.Tree})
	var be *cmake.BuildError
	if err != nil && !errors.As(err, &be) {
		return nil, err
	}
	out.buildFailed = err != nil
	units, err := cmake.Units(ctx, q.Layout.Build)
	if err != nil {
		return nil, err
	}
	out.units = len(units)
	if out.buildFailed {
		failed, err := compileRest(ctx, q.Layout.Build, units, lenv, out.log, jobs)
		if err != nil {
			return nil, err
		}
		out.failedUnits = len(failed)
		a := attribution{tree: q.Layout.Tree}
		for _, u := range failed {
			src, _ := a.rel(u.Source)
			out.failedSources[src] = true
		}
	}
	logText, err := os.ReadFile(out.log)
	if err != nil {
		return nil, err
	}
	diags := cmake.ParseDiagnostics(string(logText))
	out.unparsed = out.buildFailed && len(diags) == 0
	out.errors = groupErrors(diags, q.Layout.Tree, overlay)
	if err := b.readSymbols(ctx, out, units); err != nil {
		return nil, err
	}
	return out, nil
}

// compileRest compiles, after a failed Ninja run, every unit Ninja still
// had to run and did not fail itself, each by its own command (see
// cmake.CompileUnit), jobs at a time: the ROCm fork makes every C++ object
// of mlx wait for its HIP kernel library, so one kernel that does not
// compile would hide every C++ break. Their output goes to the build log
// after Ninja's, unit by unit. It returns the units that failed, Ninja's
// failures included.
func compileRest(ctx context.Context, build string, units []cmake.Unit, env []string, logPath string, jobs int) ([]cmake.Unit, error) {
	pending, err := cmake.PendingUnits(ctx, build, units)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(logPath)
	if err != nil {
		return nil, err
	}
	failedByNinja := cmake.FailedOutputs(string(data))
	var failed, todo []cmake.Unit
	for _, u := range pending {
		if u.Failed(failedByNinja) {
			failed = append(failed, u)
		} else {
			todo = append(todo, u)
		}
	}
	outs := make([]bytes.Buffer, len(todo))
	errs := make([]error, len(todo))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(jobs, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fmt.Fprintf(&outs[i], "[mlxbuild: compiling %s directly, past the targets Ninja's failure left unbuilt]\n", todo[i].Output)
				errs[i] = cmake.CompileUnit(ctx, todo[i], env, &outs[i])
			}
		}()
	}
	for i := range todo {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(logPath, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	for i, u := range todo {
		if _, err := log.Write(outs[i].Bytes()); err != nil {
			return nil, err
		}
		if errs[i] != nil {
			failed = append(failed, u)
		}
	}
	return failed, nil
}

// configureVerdict is a configure failure as apiDrift reports it, one line:
// CMake's first error with its file named where it is (the tree, or the
// build directory's _deps for a FetchContent sub-build), relative to the
// scratch directory, then the log.
func configureVerdict(err error, dir, log string) string {
	var ce *cmake.ConfigureError
	if !errors.As(err, &ce) {
		return fmt.Sprintf("%v (log: %s)", err, log)
	}
	msg := strings.SplitN(ce.At.Message, "\n", 2)[0]
	if ce.At.File != "" {
		file := ce.At.File
		if r, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(r, "..") {
			file = filepath.ToSlash(r)
		}
		msg = fmt.Sprintf("%s: %s", fail.Pos{File: file, Line: ce.At.Line}, msg)
	}
	return fmt.Sprintf("%s (log: %s)", msg, log)
}
