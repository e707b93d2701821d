package flow

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/plural"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// APIDriftOptions say what to build.
type APIDriftOptions struct {
	Job       Options // where the project is, the environment
	Backend   string  // the backend whose overlay and defines to use
	Candidate string  // the MLX commit to try (an id, a branch or a tag)
	// NoBaseline skips the build at source.pin that tells breaks the bump
	// causes from symbols that were already unresolved (a CPU build of a
	// GPU overlay, the GPU runtime's symbols).
	NoBaseline bool
	Progress   io.Writer // build progress; nil for none
}

// APIDriftReport is what the overlay breaks on the candidate pin.
type APIDriftReport struct {
	Backend        string
	Pin, Candidate string // full commit ids; Pin is "" without a baseline
	Dir            string // the scratch directory of the candidate's build
	LogPath        string // its build log
	// ConfigureError is CMake's first error, when the candidate did not
	// configure: a verdict of its own, not a break of the overlay.
	ConfigureError string
	// BuildFailed: Ninja failed on the candidate. Unparsed: and no error
	// could be read from the log, so nothing can be said of the overlay.
	BuildFailed, Unparsed bool
	// Units is how many translation units the build has, FailedUnits how
	// many of them did not compile (each was tried, whatever the targets
	// it waits for).
	Units, FailedUnits int
	// FailedAtPin are the failed units (tree-relative sources) that failed
	// at source.pin too: counted in FailedUnits, but not the bump's, so
	// none of their errors is listed.
	FailedAtPin   []string
	CompileErrors []FileErrors
	// Undefined are the symbols of MLX (its namespace, or defined by the
	// tree's objects at the pin) that the objects reference, none of them
	// defines and a link with the system libraries would miss, that were
	// resolved at the pin: what the bump breaks. Unresolved are those
	// already unresolved at the pin (all of them without a baseline).
	Undefined  []Symbol
	Unresolved []Symbol
	Notes      []string
}

// Breaks counts the compile errors and new undefined symbols.
func (r *APIDriftReport) Breaks() int {
	n := len(r.Undefined)
	for _, f := range r.CompileErrors {
		n += len(f.Errors)
	}
	return n
}

// Err is the run's verdict as an error (exit 1), nil when the overlay
// builds on the candidate: a candidate that did not configure, a build that
// failed with nothing to read, or the breaks to fix in the overlay.
func (r *APIDriftReport) Err() error {
	switch {
	case r.ConfigureError != "":
		return fmt.Errorf("could not configure the candidate %s: %s; that is no break of the overlay: fix the set-up (dependencies, toolchain) as for build:%s", shortID(r.Candidate), r.ConfigureError, r.Backend)
	case r.Breaks() > 0:
		return fmt.Errorf("the %s overlay has %s on MLX %s; fix them in the overlay (and record each in LOCAL_FIXES.md) before bumping the pin", r.Backend, plural.Count(r.Breaks(), "break"), shortID(r.Candidate))
	case r.Unparsed:
		return fmt.Errorf("the build on MLX %s failed and no error could be read from its log: read %s", shortID(r.Candidate), r.LogPath)
	case r.BuildFailed:
		return fmt.Errorf("the build on MLX %s failed, with only the errors it has at source.pin %s too: no break of the bump, but the overlay does not build; read %s", shortID(r.Candidate), shortID(r.Pin), r.LogPath)
	}
	return nil
}

// FileErrors are the compile errors of one file, each once.
type FileErrors struct {
	File      string // relative to the tree
	InOverlay bool   // the file comes from the overlay, not upstream
	Errors    []cmake.Diagnostic
	// Includes are, for an upstream file, the overlay files it includes:
	// a core file the overlay has not moved to the candidate is the likely
	// cause of its errors.
	Includes []string
}

// Symbol is an undefined symbol, demangled, with the sources that use it.
type Symbol struct {
	Name string
	From []string // sources (relative to the tree) whose objects reference it
}

// APIDrift materializes the tree at the candidate pin with the backend's
// overlay in a scratch directory under the cache (the backend's own tree is
// not touched), configures it exactly as the backend's build does (the same
// defines, toolchain set-up, dependency provider and launcher: see
// configureOptions), builds it with Ninja's keep-going and then compiles
// every unit Ninja left unbuilt by its own command, and reports compile
// errors (file:line: message, by the overlay file to edit, deduplicated)
// and undefined symbols: `nm --undefined-only -C` on the build's objects
// against what they define, kept only when a trial link with the C++
// driver's libraries misses them too and they are MLX's. The same build at
// source.pin (kept between runs) is the baseline: its own failures are not
// the bump's.
func APIDrift(ctx context.Context, o APIDriftOptions) (*APIDriftReport, error) {
	if err := gitrun.CheckRev(o.Candidate); err != nil {
		return nil, fail.Configf("overlay apiDrift: the candidate %q %v; give an MLX commit id, a branch or a tag", shortID(o.Candidate), err)
	}
	r, err := open(ctx, o.Job, request{target: "overlay:apiDrift", backend: o.Backend, resolve: true})
	defer r.close()
	if err != nil {
		return nil, err
	}
	p := r.Prepared
	// The toolchain checks build:<backend> makes before it starts.
	if gaps := p.toolchainGaps(); len(gaps) > 0 {
		return nil, p.gapsError(gaps)
	}
	proj := p.Config.Project
	upstream := forksync.Upstream(proj)
	if upstream == "" {
		return nil, fmt.Errorf("overlay apiDrift needs MLX's history to check out %s: set source.git in %s (a URL or a local clone)", o.Candidate, proj.File)
	}
	root := p.Config.CacheRoot.Value
	var also []string
	baseline := !o.NoBaseline && proj.Source.Pin != ""
	if baseline {
		also = append(also, proj.Source.Pin)
	}
	rep := &APIDriftReport{Backend: p.Backend}
	if rep.Candidate, err = forksync.ResolveUpstream(ctx, root, upstream, o.Candidate, also...); err != nil {
		return nil, err
	}
	if note := retargetNote(p.Config.Overlay(p.Backend), rep.Candidate); note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	b := &driftBuild{p: p, upstream: upstream, progress: o.Progress}
	cand, err := b.at(ctx, rep.Candidate, nil)
	if err != nil {
		return nil, err
	}
	rep.Dir, rep.LogPath, rep.ConfigureError = cand.dir, cand.log, cand.configureError
	if cand.configureError != "" {
		return rep, nil // nothing was built: nothing to compare
	}
	rep.BuildFailed, rep.Unparsed = cand.buildFailed, cand.unparsed
	rep.Units, rep.FailedUnits = cand.units, cand.failedUnits
	var base *buildOutcome
	if baseline && rep.Candidate != proj.Source.Pin {
		rep.Pin = proj.Source.Pin
		pre, note, err := baselineOverlay(root, p.Backend, p.Config.Overlay(p.Backend), rep.Pin, rep.Candidate)
		if err != nil {
			return nil, err
		}
		if note != "" {
			rep.Notes = append(rep.Notes, note)
		}
		if base, err = b.at(ctx, rep.Pin, pre); err != nil {
			return nil, err
		}
		if base.configureError != "" || len(base.errors) > 0 || base.unparsed {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the overlay does not build cleanly at source.pin %s either (see %s): its errors and unresolved symbols there are not counted as the bump's", shortID(rep.Pin), base.log))
		}
	} else if baseline {
		rep.Pin = proj.Source.Pin
		base = cand
	}
	rep.CompileErrors = cand.errors
	if base != nil && base != cand {
		rep.CompileErrors = withoutBaselineErrors(cand.errors, base.errors)
		for src := range cand.failedSources {
			if base.failedSources[src] {
				rep.FailedAtPin = append(rep.FailedAtPin, src)
			}
		}
		slices.Sort(rep.FailedAtPin)
	}
	if !cand.linked {
		rep.Notes = append(rep.Notes, "no C++ compiler for a trial link: undefined symbols include those the system libraries define")
	}
	var ofFailed, foreign int
	rep.Undefined, rep.Unresolved, ofFailed, foreign = classifySymbols(cand, base)
	if ofFailed > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s defined at the pin by files that failed to compile here: fix those files first", plural.Count(ofFailed, "undefined symbol")))
	}
	if foreign > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s outside MLX (the toolchain's and the system's libraries) left out", plural.Count(foreign, "undefined symbol")))
	}
	return rep, nil
}

// retargetNote tells, when the overlay's core files follow another MLX
// commit than the candidate (UPSTREAM's retargeted_to_mlx_pin), to
// retarget first: their stale copies break upstream files that include
// them, and hide the real API breaks behind those effects.
func retargetNote(overlay, candidate string) string {
	to := retargetedTo(overlay)
	if to == "" || to == candidate {
		return ""
	}
	return fmt.Sprintf("the overlay's core files follow MLX %s, not the candidate: run overlay:retarget %s first (docs/pin-bump.md, part A), or the errors of stale core files hide the API breaks", shortID(to), candidate)
}

// retargetedTo is the MLX commit the overlay's core files follow
// (UPSTREAM's retargeted_to_mlx_pin), "" when UPSTREAM does not say.
func retargetedTo(overlay string) string {
	data, err := os.ReadFile(filepath.Join(overlay, records.UpstreamName))
	if err != nil {
		return ""
	}
	up, _ := records.ParseUpstream(data)
	f, _ := up.Get("retargeted_to_mlx_pin")
	return f.Value
}

// baselineOverlay says which overlay the baseline at pin builds when the
// overlay was retargeted from pin to the candidate: the overlay as it stood
// before (pre, the retarget's pre-images), with a note saying so. Without
// them the retargeted core files are built at the pin too, and whatever
// they break there is not counted: the note says that and how to get them.
// pre is nil, and note "", when the overlay was not retargeted to the
// candidate.
func baselineOverlay(root, backend, overlay, pin, candidate string) (pre *forksync.Preimages, note string, err error) {
	if retargetedTo(overlay) != candidate {
		return nil, "", nil
	}
	if pre, err = forksync.ReadPreimages(root, backend, pin, candidate); err != nil {
		return nil, "", err
	}
	if pre == nil {
		return nil, fmt.Sprintf("the baseline at source.pin %s builds the overlay's retarget to %s: overlay:retarget kept no copy of the overlay as it was before (%s), so a break its core files cause at both pins is not counted; to count them, put the overlay back as it was before the retarget and run overlay:retarget %s again", shortID(pin), shortID(candidate), forksync.PreimagesDir(root, backend, pin, candidate), candidate), nil
	}
	return pre, fmt.Sprintf("the baseline at source.pin %s builds the overlay as it was before overlay:retarget (%s of the retarget kept in %s)", shortID(pin), plural.Count(len(pre.Files)+len(pre.Absent), "file"), pre.Dir), nil
}

// classifySymbols sorts the candidate's unresolved symbols: the bump's
// (undefined), those unresolved at the pin too, those whose definition at
// the pin is in a file that failed to compile here (ofFailed), and those
// outside MLX (foreign: not in its namespace and not defined by the tree
// at the pin: the toolchain's and the system's libraries, hip*, rocblas,
// BLAS, libstdc++). base is nil without a baseline.
func classifySymbols(cand, base *buildOutcome) (undefined, unresolved []Symbol, ofFailed, foreign int) {
	for _, s := range cand.missing {
		atPin := ""
		if base != nil {
			atPin = base.defined[s.Name]
		}
		switch {
		case !mlxSymbol(s.Name) && atPin == "":
			foreign++
		case base != nil && base.missingSet[s.Name]:
			unresolved = append(unresolved, s)
		case atPin != "" && cand.failedSources[atPin]:
			ofFailed++
		default:
			undefined = append(undefined, s)
		}
	}
	return undefined, unresolved, ofFailed, foreign
}

// withoutBaselineErrors drops from cand the errors the baseline had too
// (the same file and message: lines move with the bump).
func withoutBaselineErrors(cand, base []FileErrors) []FileErrors {
	had := map[string]bool{}
	for _, f := range base {
		for _, d := range f.Errors {
			had[f.File+"\x00"+d.Message] = true
		}
	}
	var out []FileErrors
	for _, f := range cand {
		kept := f
		kept.Errors = nil
		for _, d := range f.Errors {
			if !had[f.File+"\x00"+d.Message] {
				kept.Errors = append(kept.Errors, d)
			}
		}
		if len(kept.Errors) > 0 {
			out = append(out, kept)
		}
	}
	return out
}

// objectSource turns CMake's object path (.../CMakeFiles/mlx.dir/mlx/c_api.cpp.o)
// into the source it was compiled from (mlx/c_api.cpp).
func objectSource(obj string) string {
	s := filepath.ToSlash(obj)
	if i := strings.Index(s, ".dir/"); i >= 0 {
		s = s[i+len(".dir/"):]
	}
	return strings.TrimSuffix(s, ".o")
}

// shortID abbreviates a commit id for messages and directory names.
func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Render writes the API drift report: how much compiled, compile errors by
// the file to edit, then the undefined symbols the bump causes, with the
// sources that use them, and the verdict.
func (r *APIDriftReport) Render(w io.Writer) {
	fmt.Fprintf(w, "%s overlay on MLX %s", r.Backend, shortID(r.Candidate))
	if r.Pin != "" {
		fmt.Fprintf(w, " (baseline: source.pin %s)", shortID(r.Pin))
	}
	fmt.Fprintf(w, "\nscratch build: %s\n", r.Dir)
	if r.ConfigureError != "" {
		fmt.Fprintf(w, "could not configure the candidate: %s\n", r.ConfigureError)
		return
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "%d of %d units compiled", r.Units-r.FailedUnits, r.Units)
	if r.FailedUnits > 0 {
		fmt.Fprintf(w, "; %d failed", r.FailedUnits)
		if n := len(r.FailedAtPin); n > 0 {
			fmt.Fprintf(w, " (%d also at the pin: %s)", n, strings.Join(r.FailedAtPin, ", "))
		}
	}
	fmt.Fprintln(w)
	for _, f := range r.CompileErrors {
		origin := "upstream"
		if f.InOverlay {
			origin = "overlay"
		} else if filepath.IsAbs(f.File) {
			// groupErrors names tree files relative to the tree: this one
			// is the system's (a header of a package missing or too old).
			origin = "outside the tree: the system's"
		} else if len(f.Includes) > 0 {
			origin = "upstream; it includes the overlay's " + strings.Join(f.Includes, ", ") + ": a core file not moved to the candidate is the likely cause"
		}
		fmt.Fprintf(w, "compile errors in %s (%s):\n", f.File, origin)
		for _, d := range f.Errors {
			fmt.Fprintf(w, "  %s: %s\n", fail.Pos{File: f.File, Line: d.Line}, d.Message)
		}
	}
	if len(r.Undefined) > 0 {
		fmt.Fprintf(w, "undefined symbols (%d):\n", len(r.Undefined))
		for _, s := range r.Undefined {
			fmt.Fprintf(w, "  %s\n    used by %s\n", s.Name, strings.Join(s.From, ", "))
		}
	}
	if len(r.Unresolved) > 0 {
		fmt.Fprintf(w, "%s already unresolved at the pin (not caused by the bump):", plural.Count(len(r.Unresolved), "symbol"))
		for _, s := range r.Unresolved {
			fmt.Fprintf(w, " %s;", s.Name)
		}
		fmt.Fprintln(w)
	}
	switch n := r.Breaks(); {
	case n > 0:
		fmt.Fprintf(w, "%s; build log: %s\n", plural.Count(n, "break"), r.LogPath)
	case r.Unparsed:
		fmt.Fprintf(w, "the build failed and no error could be read from it: see %s\n", r.LogPath)
	case r.BuildFailed:
		fmt.Fprintf(w, "no break of the bump: the build fails only as it does at source.pin too; build log: %s\n", r.LogPath)
	default:
		fmt.Fprintln(w, "no API drift: the overlay builds on the candidate")
	}
}
