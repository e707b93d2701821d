package flow

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/overlays"
	"github.com/mlxbuild/mlxbuild/overlays/forksync"
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
	ConfigureError string // CMake's failure, when the candidate does not configure
	CompileErrors  []FileErrors
	// Undefined are the symbols the objects reference, none of them
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
	if r.ConfigureError != "" {
		n++
	}
	return n
}

// FileErrors are the compile errors of one file, each once.
type FileErrors struct {
	File      string // relative to the tree
	InOverlay bool   // the file comes from the overlay, not upstream
	Errors    []cmake.Diagnostic
}

// Symbol is an undefined symbol, demangled, with the sources that use it.
type Symbol struct {
	Name string
	From []string // sources (relative to the tree) whose objects reference it
}

// APIDrift materializes the tree at the candidate pin with the backend's
// overlay in a scratch directory under the cache (the backend's own tree is
// not touched), configures it with the backend's defines and builds it with
// Ninja's keep-going, then reports compile errors (file:line: message,
// grouped by file, deduplicated) and undefined symbols: `nm
// --undefined-only -C` on the build's objects against what they define,
// kept only when a trial link with the C++ driver's libraries misses them
// too. The same build at source.pin (kept between runs) is the baseline.
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
	b := &driftBuild{p: p, upstream: upstream, progress: o.Progress}
	cand, err := b.at(ctx, rep.Candidate)
	if err != nil {
		return nil, err
	}
	rep.Dir, rep.LogPath, rep.ConfigureError = cand.dir, cand.log, cand.configureError
	rep.CompileErrors = cand.errors
	var base *buildOutcome
	if baseline {
		rep.Pin = proj.Source.Pin
		if base, err = b.at(ctx, rep.Pin); err != nil {
			return nil, err
		}
		if base.configureError != "" || len(base.errors) > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the overlay does not build cleanly at source.pin %s either (see %s): undefined symbols are compared with what that build produced", shortID(rep.Pin), base.log))
		}
	}
	if len(cand.errors) > 0 {
		rep.Notes = append(rep.Notes, "files that failed to compile define nothing: some undefined symbols may be theirs")
	}
	if !cand.linked {
		rep.Notes = append(rep.Notes, "no C++ compiler for a trial link: undefined symbols include those the system libraries define")
	}
	for _, s := range cand.missing {
		if base != nil && base.missingSet[s.Name] {
			rep.Unresolved = append(rep.Unresolved, s)
		} else {
			rep.Undefined = append(rep.Undefined, s)
		}
	}
	return rep, nil
}

// driftBuild builds the overlay on one pin after another.
type driftBuild struct {
	p        *Prepared
	upstream string
	progress io.Writer
}

type buildOutcome struct {
	dir, log       string
	configureError string
	errors         []FileErrors
	missing        []Symbol
	missingSet     map[string]bool
	linked         bool
}

func (b *driftBuild) at(ctx context.Context, pin string) (*buildOutcome, error) {
	p := b.p
	root := p.Config.CacheRoot.Value
	dir := filepath.Join(root, "apidrift", p.Backend, shortID(pin))
	out := &buildOutcome{dir: dir, log: filepath.Join(dir, "build.log"), missingSet: map[string]bool{}}
	if err := cache.EnsureRoot(root); err != nil {
		return nil, err
	}
	if err := cache.CheckFolder(root, dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("overlay apiDrift: creating %s: %w; make the cache directory writable or set MLXBUILD_CACHE", dir, err)
	}
	unlock, err := cache.Lock(ctx, filepath.Join(dir, "lock"), nil)
	if err != nil {
		return nil, err
	}
	defer unlock()
	pristine, err := overlays.Pristine(ctx, root, overlays.Source{Git: b.upstream, Pin: pin})
	if err != nil {
		return nil, err
	}
	overlay := p.Config.Overlay(p.Backend)
	tree := filepath.Join(dir, "tree")
	if _, _, err := overlays.Materialize(pristine, overlay, tree, filepath.Join(dir, "manifest"), p.Spec.Records); err != nil {
		return nil, err
	}
	defines := map[string]string{}
	for k, v := range p.Defines {
		defines[k] = v
	}
	var env []string
	if p.Located != nil {
		extra, e, err := p.Located.CMakeSetup(filepath.Join(dir, "hip-prefix"))
		if err != nil {
			return nil, fmt.Errorf("preparing CMake for %s: %w", p.Located, err)
		}
		for k, v := range extra {
			defines[k] = v
		}
		env = e
	}
	build := filepath.Join(dir, "build")
	clog, err := os.Create(filepath.Join(dir, "configure.log"))
	if err != nil {
		return nil, err
	}
	err = cmake.Configure(ctx, cmake.ConfigureOptions{Source: tree, Build: build, Defines: defines, Env: env, Log: clog})
	clog.Close()
	if err != nil {
		out.configureError = fmt.Sprintf("%v (log: %s)", err, clog.Name())
		return out, nil
	}
	jobs := cmake.DefaultJobs(p.Spec.Jobs.MemoryPerJobGiB)
	if j, err := strconv.Atoi(p.Config.Jobs.Value); err == nil && j > 0 {
		jobs = j
	}
	res, err := cmake.Build(ctx, cmake.BuildOptions{Dir: build, Jobs: jobs, KeepGoing: true, LogPath: out.log, Progress: b.progress, Env: env})
	var be *cmake.BuildError
	if err != nil && !errors.As(err, &be) {
		return nil, err
	}
	out.errors = groupErrors(res.Errors, tree, overlay)
	objs, err := objects(build)
	if err != nil {
		return nil, fmt.Errorf("overlay apiDrift: listing the objects of %s: %w", build, err)
	}
	syms, err := readSymbols(ctx, objs)
	if err != nil {
		return nil, err
	}
	missing := syms.missing()
	misses, linked := linkMisses(ctx, dir, objs)
	out.linked = linked
	names := make([]string, 0, len(missing))
	for s := range missing {
		if !linked || misses[s] {
			names = append(names, s)
		}
	}
	slices.Sort(names)
	for _, s := range names {
		sym := Symbol{Name: s}
		for obj := range missing[s] {
			sym.From = append(sym.From, objectSource(obj))
		}
		slices.Sort(sym.From)
		out.missing = append(out.missing, sym)
		out.missingSet[s] = true
	}
	return out, nil
}

// groupErrors groups diagnostics by file (relative to the tree), each
// file:line:message once.
func groupErrors(diags []cmake.Diagnostic, tree, overlay string) []FileErrors {
	byFile := map[string]*FileErrors{}
	seen := map[string]bool{}
	var order []string
	for _, d := range diags {
		rel := d.File
		if r, err := filepath.Rel(tree, d.File); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		key := rel + "\x00" + strconv.Itoa(d.Line) + "\x00" + d.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		fe := byFile[rel]
		if fe == nil {
			fe = &FileErrors{File: rel}
			if overlay != "" {
				if _, err := os.Stat(filepath.Join(overlay, filepath.FromSlash(rel))); err == nil {
					fe.InOverlay = true
				}
			}
			byFile[rel] = fe
			order = append(order, rel)
		}
		d.File = rel
		fe.Errors = append(fe.Errors, d)
	}
	slices.Sort(order)
	out := make([]FileErrors, 0, len(order))
	for _, f := range order {
		out = append(out, *byFile[f])
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

// Render writes the API drift report: compile errors by file, then the
// undefined symbols the bump causes, with the sources that use them.
func (r *APIDriftReport) Render(w io.Writer) {
	fmt.Fprintf(w, "%s overlay on MLX %s", r.Backend, shortID(r.Candidate))
	if r.Pin != "" {
		fmt.Fprintf(w, " (baseline: source.pin %s)", shortID(r.Pin))
	}
	fmt.Fprintf(w, "\nscratch build: %s\n", r.Dir)
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.ConfigureError != "" {
		fmt.Fprintf(w, "configure failed: %s\n", r.ConfigureError)
	}
	for _, f := range r.CompileErrors {
		origin := "upstream"
		if f.InOverlay {
			origin = "overlay"
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
		fmt.Fprintf(w, "%d symbol%s already unresolved at the pin (not caused by the bump):", len(r.Unresolved), plural(len(r.Unresolved)))
		for _, s := range r.Unresolved {
			fmt.Fprintf(w, " %s;", s.Name)
		}
		fmt.Fprintln(w)
	}
	if n := r.Breaks(); n == 0 {
		fmt.Fprintln(w, "no API drift: the overlay builds on the candidate")
	} else {
		fmt.Fprintf(w, "%d break%s; build log: %s\n", n, plural(n), r.LogPath)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
