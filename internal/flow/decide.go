package flow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/overlays"
)

// decision is cache.Decide applied to this run, with what acting on it
// needs: the stamp to write after a successful build and the compiler
// launcher that configure and Ninja use.
type decision struct {
	cache.Decision
	cur      *cache.Stamp
	launcher *compilecache.Config // nil for none
	ldefs    map[string]string    // the launcher's CMake defines
	lenv     []string             // the launcher's environment for Ninja
	// expect is what CMake's cache must hold after a configure of this
	// run, the dependency provider aside (see cacheEntries).
	expect map[string]string
}

// decide is the one decision of a run: what changed since the last
// successful build (the stamp against this run's inputs, with the overlay's
// files and the dependencies' providers known) and what the build must
// redo for it. It writes nothing, so plan prints exactly what build would
// do; warn receives what the user should know (a launcher not installed).
func (r *run) decide(warn func(format string, args ...any)) (*decision, error) {
	p := r.Prepared
	last, err := r.lastBuild()
	if err != nil {
		return nil, err
	}
	cur, err := p.stampInputs()
	if err != nil {
		return nil, err
	}
	// The compiler launcher (ccache/sccache) is kept out of the stamp:
	// switching it on must not rebuild the tree, only reconfigure CMake,
	// which the configure record sees.
	lc, ldefs, lenv, err := p.launcherSetup(p.Layout.Dir, warn)
	if err != nil {
		return nil, err
	}
	cmc, err := cmakecache.Read(p.Layout.Build)
	if err != nil {
		return nil, err
	}
	expect, err := p.cacheEntries(ldefs, "")
	if err != nil {
		return nil, err
	}
	d := cache.Decide(cache.BuildState{
		Old: last.stamp, Configured: last.configured, Cur: cur, Launcher: ldefs,
		BuildReady: r.Configured(), CMakeCache: cmc, Expect: expect,
	})
	return &decision{Decision: d, cur: cur, launcher: lc, ldefs: ldefs, lenv: lenv, expect: expect}, nil
}

// purgeOldPin removes the old pin's tree and build directory when the
// last successful build was of another pin, before the tree is
// materialized at this one. It reports whether it purged.
func (r *run) purgeOldPin() (bool, error) {
	last, err := r.lastBuild()
	if err != nil {
		return false, err
	}
	from := cache.OldPin(last.stamp, r.pinLabel())
	if from == "" {
		return false, nil
	}
	r.check = nil // it reads what the purge removes: its answer is void
	if err := cache.PurgeForPin(r.Layout, from, r.pinLabel()); err != nil {
		return false, err
	}
	// The build directory went with its configure record; the stamp stays,
	// so the decision still says the pin changed.
	r.configured, last.configured = false, nil
	return true, nil
}

// materialize makes sure the pristine source is at the pin and applies the
// overlay into the backend's tree.
func (p *Prepared) materialize(ctx context.Context) (overlays.Stats, *userFiles, error) {
	pristine, check, err := overlays.PristineKept(ctx, p.Config.CacheRoot.Value, p.source())
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	// With layers this is the composed overlay in the cache.
	src, err := p.composeOverlay()
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	src.Pristine = pristine
	stats, m, err := overlays.MaterializeHeld(pristine, src.Overlay, p.Layout.Tree, p.Layout.Manifest, p.Spec.Records, overlays.Held{LockFile: p.Layout.Lock, Source: check})
	if err != nil {
		return overlays.Stats{}, nil, err
	}
	p.treeFingerprint = m.Fingerprint()
	if id := memo.Of(p.Layout.Manifest); !id.Absent {
		p.treeKey = id.Key()
	}
	return stats, &userFiles{manifest: m, tree: p.Layout.Tree, src: src, layers: p.layers()}, nil
}

// userFiles maps the tree's files back to the user's: the overlay's (or
// the layer's) file or the pristine source's, through the tree's manifest.
type userFiles struct {
	manifest *overlays.Manifest
	tree     string
	src      overlays.Sources
	layers   []overlays.Layer // nil without layers
}

// where says, for the files of diagnostics, which file of the user's to
// edit ("" when none is a tree file): the tree copy is rewritten by the
// next run, so an error must name the overlay, layer or pristine file.
func (u *userFiles) where(diags []cmake.Diagnostic) string {
	var lines []string
	for _, d := range diags {
		f, ok := u.source(d.File)
		if !ok {
			continue
		}
		l := fmt.Sprintf("%s (%s)", fail.Pos{File: f.Path, Line: d.Line, Col: d.Col}, f.Label())
		if !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return "edit " + strings.Join(lines, ", ") + "; the tree is a copy that the next build rewrites"
}

// configureFailed is the error of a failed configure of backend's tree
// (log: its full log). CMake names the tree's copy of the file: in the
// user's overlay code the fix names the overlay (or layer) file and says
// what to do in place of CMake's generic hint; in pristine MLX (mostly a
// FATAL_ERROR about options) the hint stays and the pristine file is named.
func (u *userFiles) configureFailed(backend string, err error, log string) error {
	var ce *cmake.ConfigureError
	var at overlays.UserFile
	located := errors.As(err, &ce) && ce.At.File != ""
	if located {
		at, located = u.source(ce.At.File)
	}
	own := located && at.Origin == overlays.FromOverlay
	if own {
		ce.Hint = "" // before the message below is made of it
	}
	pristine := ""
	if located && !own {
		pristine = fmt.Sprintf("\nin %s: %s", at.Label(), fail.Pos{File: at.Path, Line: ce.At.Line})
	}
	err = fmt.Errorf("CMake configure of the %s tree failed: %w%s\nfull log: %s", backend, err, pristine, log)
	if own {
		return fail.WithFix(err, u.where([]cmake.Diagnostic{ce.At})+"; then run the build again")
	}
	return err
}

// source is the user's file behind a tree file, when the tree holds it.
func (u *userFiles) source(treeFile string) (overlays.UserFile, bool) {
	if u == nil || u.manifest == nil {
		return overlays.UserFile{}, false
	}
	return u.manifest.SourceOf(u.tree, treeFile, u.src)
}

// restoredNote says, for a tree file materialize put back after a hand
// edit, where the edit belongs.
func (u *userFiles) restoredNote(rel string) string {
	f, ok := u.source(rel)
	switch {
	case !ok:
		return fmt.Sprintf("restored %s: it was edited in the tree, which mlxbuild rewrites", rel)
	case f.Origin == overlays.FromOverlay:
		return fmt.Sprintf("restored %s: it was edited in the tree; edit %s (%s) instead", rel, f.Path, f.Label())
	case u.layers != nil:
		// The top layer is where a new file wins over every other; name
		// it when it takes every file to the root, else leave the choice.
		if top := u.layers[len(u.layers)-1]; len(top.Files) == 0 && top.To == "" {
			return fmt.Sprintf("restored %s: it was edited in the tree; to change it, copy %s into the top overlay layer as %s", rel, f.Path, filepath.Join(top.Dir, filepath.FromSlash(rel)))
		}
		return fmt.Sprintf("restored %s: it was edited in the tree; to change it, copy %s into an overlay layer that takes %s", rel, f.Path, rel)
	case u.src.Overlay != "":
		return fmt.Sprintf("restored %s: it was edited in the tree; to change it, copy %s into the overlay as %s", rel, f.Path, filepath.Join(u.src.Overlay, filepath.FromSlash(rel)))
	}
	return fmt.Sprintf("restored %s: it was edited in the tree; edit %s instead", rel, f.Path)
}
