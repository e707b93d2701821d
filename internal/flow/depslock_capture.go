package flow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/deps"
)

// captureRequests configures the backend's tree once, from scratch, with
// deps:lock's capture provider (deps.CaptureScript), and returns what its
// FetchContent asked for. The tree is materialized as a build would; the
// configure runs in the backend's DepsLock folder, removed afterwards, so
// the build directory is untouched. The dependencies already provided get
// their providers' defines, as in a build (a system fmt turns off the
// FetchContent of fmt). A configure that fails is warned about: the
// requests made before the failure still count.
func captureRequests(ctx context.Context, o Options, backend string) ([]deps.Request, error) {
	r, err := open(ctx, o, request{target: "deps:lock", backend: backend, exact: true, resolve: true, lock: true})
	defer r.close()
	if err != nil {
		return nil, err
	}
	p := r.Prepared
	_, files, err := p.materialize(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.resolveDeps(p.Layout.Tree); err != nil {
		return nil, err
	}
	defines, err := p.cmakeSetup()
	if err != nil {
		return nil, err
	}
	scratch := p.Layout.DepsLock
	if err := os.RemoveAll(scratch); err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	captured := filepath.Join(scratch, "requests.txt")
	script := filepath.Join(scratch, "capture.cmake")
	if err := os.WriteFile(script, []byte(deps.CaptureScript(captured, filepath.Join(scratch, "stand-ins"))), 0o644); err != nil {
		return nil, err
	}
	logPath := p.Layout.DepsLock + ".log"
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cerr := cmake.Configure(ctx, cmake.ConfigureOptions{
		Source: p.Layout.Tree, Build: filepath.Join(scratch, "build"), Defines: defines, Env: p.CMakeEnv,
		DependencyProvider: script, Log: log,
	})
	log.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	data, err := os.ReadFile(captured)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	reqs, err := deps.ParseCapture(data)
	if err != nil {
		return nil, fmt.Errorf("reading what the %s configure asked for: %w", backend, err)
	}
	if cerr != nil {
		o.printer().Warn("the %s configure of deps:lock ended with an error (the stand-ins have no targets, so this can be expected); the %d requests made before it count (log: %s): %s",
			backend, len(reqs), logPath, firstLine(cerr.Error()))
	}
	deps.Locate(reqs, p.Layout.Tree)
	// The tree is a copy the next run rewrites: point at the user's file
	// (the pristine source or the overlay) behind it.
	for i, r := range reqs {
		if f, ok := files.source(r.At.File); ok {
			reqs[i].At.File = f.Path
		}
	}
	return reqs, nil
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
