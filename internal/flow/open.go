package flow

import (
	"context"
	"fmt"
	"time"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// request is what a flow entry asks of the opening of its run.
type request struct {
	target  string // the target that asks: "build:rocm", "overlay:apply"
	backend string // the target's own backend; "" lets the selection choose (build:cargo)
	// exact takes backend as named, without the selection: apply
	// materializes the tree it is asked for, whatever MLXBUILD_BACKENDS
	// or Cargo's features would choose.
	exact bool
	// resolve locates the toolchain, checks its version constraints and
	// resolves the architectures.
	resolve bool
	// build says a build follows: the warnings are said, and what the
	// toolchain lacks is refused before the lock is waited for.
	build bool
	// lock takes the backend cache's lock (build, apply); plan, which
	// writes nothing, takes none.
	lock bool
}

// run is one flow entry's run, opened once: the configuration loaded, the
// backend selected, the cache layout computed, the lock taken, each once.
// Every entry (build, plan, verify, apply, apiDrift, Cargo's build) starts
// from open and ends with close, which alone gives the lock up.
type run struct {
	*Prepared
	lock heldLock
	// check is the no-work record's answer for a build of a configured
	// directory, asked once the lock is held (nil otherwise).
	check *cmake.NoWorkCheck
	// configured is the one answer to "does the build directory hold a
	// generated build.ninja" (cmake.Configured), asked under the lock
	// where the run holds one; a purge of the old pin makes it false.
	configured bool
	// last is what the last successful build left, read once (lastBuild).
	last    *lastBuild
	release []func() // run by close, last first
	opened  time.Time
}

// open opens a run: the project file read and the backend selected, the
// toolchain and architectures resolved, and, for a request that locks,
// the run's lock taken (lockCache). Nothing is written before the
// configuration is checked whole, so the lock waits until then, except
// for a build whose build directory is configured already: its cache
// exists, so locking it writes nothing new, and it is locked once the
// project file is read, so the no-work record is checked beside the
// resolution, one-threaded, rather than beside materialize's parallel
// walk (measured in docs/benchmarks.md, "The no-op decided once"). On an
// error once the backend is selected the run is still returned, so verify
// can run the checks that read only sources; a nil run closes too.
func open(ctx context.Context, o Options, req request) (*run, error) {
	if err := checkWorkingDir(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	pr := o.printer()
	r := &run{opened: time.Now()}
	p, err := load(o, req)
	if err != nil {
		return nil, err
	}
	r.Prepared = p
	p.Layout = cache.For(p.Config.CacheRoot.Value, p.Backend)
	configured := req.lock && req.build && cmake.Configured(p.Layout.Build)
	if configured {
		if err := r.lockCache(ctx, req); err != nil {
			return r, err
		}
	}
	if req.resolve {
		if err := p.resolve(ctx); err != nil {
			return r, err
		}
	}
	if req.build {
		for _, w := range p.Warnings {
			pr.Warn("%s", w)
		}
		// What the toolchain must bring does not depend on the build:
		// check it now, in seconds, so a missing package or library is
		// named first.
		if gaps := p.toolchainGaps(); len(gaps) > 0 {
			return r, p.gapsError(gaps)
		}
	}
	if req.lock && !configured {
		if err := r.lockCache(ctx, req); err != nil {
			return r, err
		}
	}
	if !req.lock {
		r.configured = cmake.Configured(p.Layout.Build)
	}
	return r, nil
}

// lockCache takes the run's lock on its backend's cache and does what the
// lock is for: the owner record written under it (a run holding the lock
// sweeps the record's temporary files as a killed run's), what killed runs
// left cleared, and the build directory asked, under the lock, whether it
// is configured. For a build of a configured directory it starts the
// no-work record's check, read only if the decision redoes nothing.
func (r *run) lockCache(ctx context.Context, req request) error {
	p := r.Prepared
	if err := cache.PrepareFolders(p.Layout); err != nil {
		return err
	}
	if err := r.lock.take(ctx, p.Layout, p.Backend, p.Opts.printer()); err != nil {
		return err
	}
	if err := cache.ClaimOwner(p.Layout, p.Config.Project.Dir); err != nil {
		return err
	}
	if _, err := cache.RemoveStaleTemps(p.Layout); err != nil {
		return err
	}
	r.configured = cmake.Configured(p.Layout.Build)
	if req.build && r.configured {
		r.check = cmake.CheckNoWork(p.Layout.Build)
	}
	return nil
}

// load reads the project file and selects the backend (or, for an exact
// request, takes the one named), reading its spec once.
func load(o Options, req request) (*Prepared, error) {
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Opts: o, Config: cfg, Defines: map[string]string{}}
	if req.exact {
		spec, err := cfg.Spec(req.backend)
		if err != nil {
			return nil, err
		}
		p.Backend, p.Kind, p.Spec = req.backend, backends.Lookup(req.backend), spec
		return p, nil
	}
	return p, p.selectBackend(req.target, req.backend)
}

// Configured says whether the build directory holds a generated
// build.ninja, as the run found it (under its lock where it holds one).
func (r *run) Configured() bool { return r.configured }

// close ends the run: the lock given up, what the opening set aside
// restored. A nil run closes too.
func (r *run) close() {
	if r == nil {
		return
	}
	r.lock.release()
	for i := len(r.release) - 1; i >= 0; i-- {
		r.release[i]()
	}
	r.release = nil
}

// lastBuild is what the last successful build left: its stamp and the
// record of what CMake was configured with (nil when absent).
type lastBuild struct {
	stamp      *cache.Stamp
	configured *cache.ConfigureRecord
}

// lastBuild reads the stamp and the configure record once per run.
func (r *run) lastBuild() (*lastBuild, error) {
	if r.last != nil {
		return r.last, nil
	}
	old, err := cache.ReadStamp(r.Layout.Stamp)
	if err != nil {
		return nil, err
	}
	configured, err := cache.ReadConfigureRecord(r.Layout.Build)
	if err != nil {
		return nil, err
	}
	r.last = &lastBuild{old, configured}
	return r.last, nil
}

// heldLock is a backend cache's lock a run holds.
type heldLock struct {
	dir    string // the locked backend directory; "" when none is held
	unlock func() error
}

// take locks l's directory, saying so when another mlxbuild holds it.
func (h *heldLock) take(ctx context.Context, l cache.Layout, backend string, pr *ui.Printer) error {
	// The lock file is made, and written, in the backend's directory.
	if err := l.CheckFolders(); err != nil {
		return err
	}
	unlock, err := cache.Lock(ctx, l.Lock, func(pid int) {
		pr.Info("waiting for %s that holds %s", cache.Holder(pid), l.Lock)
	})
	if err != nil {
		return fmt.Errorf("locking the %s cache: %w", backend, err)
	}
	h.dir, h.unlock = l.Dir, unlock
	return nil
}

// release gives the lock up.
func (h *heldLock) release() {
	if h.unlock != nil {
		_ = h.unlock()
	}
	*h = heldLock{}
}
