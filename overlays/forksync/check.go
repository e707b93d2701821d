package forksync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// CheckOptions say which overlay to hold against its fork and pin.
type CheckOptions struct {
	CacheRoot string
	Overlay   string       // absolute
	Fork      configs.Fork // Git resolved; Dirs are the backend directories
	Upstream  string       // MLX's repository, for the pin; "" looks for the pin in the fork's
	Write     bool         // rewrite CORE_RESIDUAL.diff (keeping its notes) instead of failing on a changed residual
}

// Finding is one disagreement between the overlay and its records.
type Finding struct {
	File    string // the records file to fix, or the overlay file concerned
	Line    int
	Message string
	Fix     string
}

// ResidualFile is one core file whose content is not "pin + fork delta".
type ResidualFile struct {
	Path        string
	Plus, Minus int
	Conflicted  bool // the reconstruction itself had conflict markers, which the overlay resolved
}

// CheckReport is what CheckRecords found.
type CheckReport struct {
	Fork, Base, Pin              string
	Backend                      int // backend files of the overlay
	Modified, LocalOnly, Dropped []string
	Core                         int
	Residuals                    []ResidualFile
	ResidualChanged              bool
	Wrote                        string // CORE_RESIDUAL.diff's path when -write rewrote it
	Findings                     []Finding
	Notes                        []string
}

// CheckRecords does what the reference's `rocm_overlay.py records` and
// `drift` do together, against the fork and the pin UPSTREAM records:
//
//   - the offline checks of the records (numbering, README counts,
//     CORE_RESIDUAL.diff's header, hashes and notes);
//   - every backend file that differs from the fork commit (modified,
//     local-only, or dropped from the overlay) is named in LOCAL_FIXES.md;
//   - every MLX file the fork changes that the overlay does not carry is
//     named there too (the overlay leaves out a fork hook on purpose);
//   - each core file is rebuilt as "pin + the fork's change" and whatever
//     the overlay carries beyond it must be what CORE_RESIDUAL.diff records.
//
// With o.Write a changed residual is written instead of reported, notes
// kept; a patch without a note is still a finding until someone names its
// item.
func CheckRecords(ctx context.Context, o CheckOptions) (*CheckReport, error) {
	upFile := filepath.Join(o.Overlay, records.UpstreamName)
	upData, err := os.ReadFile(upFile)
	if err != nil {
		return nil, fail.Configf("%s: %v; an overlay vendored from a fork keeps UPSTREAM with commit:, fork_upstream_merge_base: and retargeted_to_mlx_pin:", upFile, errors.Unwrap(err))
	}
	up, _ := records.ParseUpstream(upData)
	rep := &CheckReport{}
	for _, k := range []struct {
		key string
		dst *string
	}{{"commit", &rep.Fork}, {"fork_upstream_merge_base", &rep.Base}, {"retargeted_to_mlx_pin", &rep.Pin}} {
		f, ok := up.Get(k.key)
		if !ok || !fullHex(f.Value) {
			return nil, fail.Configf("%s: %s must be a full 40-hex commit; write `%s: <commit>`", upFile, k.key, k.key)
		}
		*k.dst = f.Value
	}
	fixesFile := filepath.Join(o.Overlay, records.LocalFixesName)
	fixesData, err := os.ReadFile(fixesFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("forksync: reading %s: %w", fixesFile, err)
	}
	lf, probs := records.ParseLocalFixes(fixesData)
	for _, p := range append(probs, lf.Numbering()...) {
		rep.add(fixesFile, p.Line, p.Message, p.Fix)
	}
	layout, err := records.ReadLayout(o.Overlay, o.Fork.Dirs, nil)
	if err != nil {
		return nil, err
	}
	fork, err := openRepo(ctx, o.CacheRoot, o.Fork.Git, rep.Fork, rep.Base)
	if err != nil {
		return nil, err
	}
	mlx := fork
	if o.Upstream != "" {
		if mlx, err = openRepo(ctx, o.CacheRoot, o.Upstream, rep.Pin); err != nil {
			return nil, err
		}
	} else if !fork.has(ctx, rep.Pin) {
		return nil, fail.Configf("the pin %s is not in the fork %s; set source.git in mlxbuild.yaml so mlxbuild can read MLX at the pin", short(rep.Pin), o.Fork.Git)
	}
	scratch, err := os.MkdirTemp("", "mlxbuild-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	m := &merger{dir: scratch}

	if err := rep.backend(ctx, fork, layout, string(fixesData), fixesFile); err != nil {
		return nil, err
	}
	if err := rep.hooks(ctx, fork, layout, string(fixesData), fixesFile); err != nil {
		return nil, err
	}
	fresh, err := rep.residual(ctx, m, fork, mlx, layout)
	if err != nil {
		return nil, err
	}
	resFile := filepath.Join(o.Overlay, records.ResidualName)
	if err := rep.compare(ctx, m, layout, fresh, resFile, o.Write); err != nil {
		return nil, err
	}
	for _, p := range append(records.CheckReadme(layout), records.CheckResidual(layout, up, lf)...) {
		if p.File == resFile && rep.ResidualChanged && !o.Write {
			continue // said once, as "the residual changed"
		}
		rep.add(p.File, p.Line, p.Message, p.Fix)
	}
	return rep, nil
}

func (r *CheckReport) add(file string, line int, msg, fix string) {
	r.Findings = append(r.Findings, Finding{File: file, Line: line, Message: msg, Fix: fix})
}

// backend compares the backend files with the fork commit.
func (r *CheckReport) backend(ctx context.Context, fork *Repo, l *records.Layout, fixes, fixesFile string) error {
	if len(l.BackendDirs) == 0 {
		r.Notes = append(r.Notes, "the overlay has no backend directory (fork.dirs): no backend file to compare with the fork")
		return nil
	}
	theirs, err := fork.readTree(ctx, r.Fork, l.BackendDirs)
	if err != nil {
		return err
	}
	ours := l.Backend()
	r.Backend = len(ours)
	in := map[string]bool{}
	for _, p := range ours {
		in[p] = true
		t, ok := theirs[p]
		switch {
		case !ok:
			r.LocalOnly = append(r.LocalOnly, p)
		case sha(t.Data) != l.Hashes[p]:
			r.Modified = append(r.Modified, p)
		}
	}
	for p := range theirs {
		if !in[p] {
			r.Dropped = append(r.Dropped, p)
		}
	}
	sort.Strings(r.Dropped)
	for _, set := range []struct {
		paths []string
		what  string
	}{{r.Modified, "differs from the fork"}, {r.LocalOnly, "is not in the fork (local-only)"}, {r.Dropped, "is in the fork but not in the overlay (dropped)"}} {
		for _, p := range set.paths {
			if !l.Mentions(fixes, p) {
				r.add(fixesFile, 0, fmt.Sprintf("%s %s at %s, but no entry names it", p, set.what, short(r.Fork)),
					"add (or extend) the LOCAL_FIXES.md entry for the change, naming the file by its path or its path under the backend directory")
			}
		}
	}
	return nil
}

// hooks lists the MLX files the fork changes that the overlay does not carry.
func (r *CheckReport) hooks(ctx context.Context, fork *Repo, l *records.Layout, fixes, fixesFile string) error {
	out, err := git(ctx, fork.Dir, "diff", "--name-only", "--no-renames", r.Base, r.Fork, "--")
	if err != nil {
		return fmt.Errorf("forksync: listing what the fork changes (%s..%s): %w", short(r.Base), short(r.Fork), err)
	}
	for _, p := range strings.Split(out, "\n") {
		if p == "" || !(strings.HasPrefix(p, "mlx/") || p == "CMakeLists.txt") || l.BackendDir(p) != "" {
			continue
		}
		if _, carried := l.Hashes[p]; carried || l.Mentions(fixes, p) {
			continue
		}
		r.add(fixesFile, 0, fmt.Sprintf("the fork changes %s, which the overlay does not carry, and no entry says why", p),
			"carry it as a core file, or say in LOCAL_FIXES.md why it is left out (the \"Dropped from the vendored set\" list)")
	}
	return nil
}

// freshResidual is one core file's residual as it is now.
type freshResidual struct {
	recon []byte // pin + fork delta
	own   []byte // the overlay's file
	patch string // from recon to own
}

// residual rebuilds each core file as pin + fork delta and diffs the overlay
// against it; it returns the files with a residual by path.
func (r *CheckReport) residual(ctx context.Context, m *merger, fork, mlx *Repo, l *records.Layout) (map[string]freshResidual, error) {
	core := l.Core()
	r.Core = len(core)
	pin, err := mlx.readTree(ctx, r.Pin, core)
	if err != nil {
		return nil, err
	}
	base, err := fork.readTree(ctx, r.Base, core)
	if err != nil {
		return nil, err
	}
	theirs, err := fork.readTree(ctx, r.Fork, core)
	if err != nil {
		return nil, err
	}
	fresh := map[string]freshResidual{}
	for _, p := range core {
		t, inFork := theirs[p]
		recon, conflicted, err := m.reconstruct(ctx, pin[p].Data, base[p].Data, t.Data, inFork, p)
		if err != nil {
			return nil, fmt.Errorf("%w (rebuilding %s)", err, p)
		}
		data, err := os.ReadFile(filepath.Join(l.Root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		patch, err := m.unifiedDiff(ctx, recon, data, p)
		if err != nil {
			return nil, err
		}
		if patch != "" {
			fresh[p] = freshResidual{recon: recon, own: data, patch: patch}
			plus, minus := patchStats(patch)
			r.Residuals = append(r.Residuals, ResidualFile{Path: p, Plus: plus, Minus: minus, Conflicted: conflicted})
		}
		if _, inPin := pin[p]; !inPin && !inFork {
			r.Notes = append(r.Notes, fmt.Sprintf("%s is in neither the pin nor the fork: the overlay adds it", p))
		}
	}
	return fresh, nil
}

// compare holds the fresh residual against CORE_RESIDUAL.diff, and writes
// it when asked.
func (r *CheckReport) compare(ctx context.Context, m *merger, l *records.Layout, fresh map[string]freshResidual, resFile string, write bool) error {
	data, err := os.ReadFile(resFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("forksync: reading %s: %w", resFile, err)
	}
	if errors.Is(err, os.ErrNotExist) && len(fresh) == 0 && !write {
		r.Notes = append(r.Notes, fmt.Sprintf("every core file is pin + fork delta; there is no %s, and none is needed", records.ResidualName))
		return nil
	}
	old, _ := records.ParseResidual(data)
	// A recorded patch still holds when it turns the reconstruction into
	// the overlay's file; only then does the recorded text need no change.
	var changed []string
	for _, rf := range r.Residuals {
		p, ok := old.Patch(rf.Path)
		if !ok {
			changed = append(changed, rf.Path+" (new residual)")
			continue
		}
		f := fresh[rf.Path]
		if !m.applies(ctx, p.Text, f.recon, f.own, rf.Path) {
			changed = append(changed, rf.Path+" (residual differs)")
		}
	}
	for _, p := range old.Patches {
		if _, ok := fresh[p.Path]; !ok {
			changed = append(changed, p.Path+" (no residual any more)")
		}
	}
	r.ResidualChanged = len(changed) > 0
	if !write {
		for _, c := range changed {
			r.add(resFile, 0, "the core residual changed: "+c,
				"review it (overlay:checkRecords lists it; git diff the file after -write), note it in LOCAL_FIXES.md, then run overlay:checkRecords -write")
		}
		return nil
	}
	next := records.Residual{
		Pin:    records.Field{Value: r.Pin},
		Fork:   records.Field{Value: r.Fork},
		Base:   records.Field{Value: r.Base},
		Hashes: map[string]records.Field{},
		Notes:  map[string]records.Field{},
	}
	for _, p := range l.Core() {
		next.Hashes[p] = records.Field{Value: l.Hashes[p]}
	}
	for _, rf := range r.Residuals {
		next.Patches = append(next.Patches, records.FilePatch{Path: rf.Path, Text: fresh[rf.Path].patch})
		if n, ok := old.Notes[rf.Path]; ok {
			next.Notes[rf.Path] = n
		}
	}
	wrote, err := atomicfile.WriteIfChanged(resFile, next.Render(), 0o644)
	if err != nil {
		return err
	}
	if wrote {
		r.Wrote = resFile
	}
	return nil
}

// Render writes the report as terse lines, findings last.
func (r *CheckReport) Render(w io.Writer) {
	fmt.Fprintf(w, "backend: %d files, %d modified from fork %s, %d local-only, %d dropped\n",
		r.Backend, len(r.Modified), short(r.Fork), len(r.LocalOnly), len(r.Dropped))
	fmt.Fprintf(w, "core: %d files, rebuilt from pin %s + fork %s (merge base %s)\n", r.Core, short(r.Pin), short(r.Fork), short(r.Base))
	for _, rf := range r.Residuals {
		tag := ""
		if rf.Conflicted {
			tag = " (pin + fork delta conflicts; the overlay resolves them)"
		}
		fmt.Fprintf(w, "  residual %s: +%d -%d%s\n", rf.Path, rf.Plus, rf.Minus, tag)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Wrote != "" {
		fmt.Fprintf(w, "wrote %s\n", r.Wrote)
	}
	for _, f := range r.Findings {
		loc := f.File
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		fmt.Fprintf(w, "%s: %s; %s\n", loc, f.Message, f.Fix)
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "records agree with the overlay, the fork and the pin\n")
	}
}

// sha is the SHA-256 of data in hex, as records.Layout hashes files.
func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// fullHex reports whether s is a full 40-hex commit id.
func fullHex(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
