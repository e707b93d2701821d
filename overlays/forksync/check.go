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

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// checkOptions say which overlay to hold against its fork and pin.
type checkOptions struct {
	cacheRoot string
	Overlay   string       // absolute
	fork      configs.Fork // Git resolved; Dirs are the backend directories
	upstream  string       // MLX's repository, for the pin; "" looks for the pin in the fork's
	pin       string       // the project's MLX pin, which UPSTREAM's retargeted_to_mlx_pin must be
	write     bool         // rewrite CORE_RESIDUAL.diff (keeping its notes) instead of failing on a changed residual
}

// finding is one disagreement between the overlay and its records.
type finding struct {
	file    string // the records file to fix, or the overlay file concerned
	line    int
	message string
	fix     string
	detail  string // lines shown under the finding: the residual's differing hunks
}

// residualFile is one core file whose content is not "pin + fork delta".
type residualFile struct {
	path        string
	plus, minus int
	conflicted  bool // the reconstruction itself had conflict markers, which the overlay resolved
}

// checkReport is what CheckRecords found.
type checkReport struct {
	fork, base, pin              string
	backendFiles                 int // backend files of the overlay
	modified, localOnly, dropped []string
	core                         int
	residuals                    []residualFile
	residualChanged              bool
	wrote                        string // CORE_RESIDUAL.diff's path when -write rewrote it
	Findings                     []finding
	notes                        []string
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
func CheckRecords(ctx context.Context, o checkOptions) (*checkReport, error) {
	upFile := filepath.Join(o.Overlay, records.UpstreamName)
	upData, err := records.ReadRecord(upFile)
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fail.Configf("%s: %v; an overlay vendored from a fork keeps UPSTREAM with commit:, fork_upstream_merge_base: and retargeted_to_mlx_pin:", upFile, errors.Unwrap(err))
	}
	up, _ := records.ParseUpstream(upData) // its problems are the gate's findings
	rep := &checkReport{}
	for _, k := range []struct {
		key string
		dst *string
	}{{"commit", &rep.fork}, {"fork_upstream_merge_base", &rep.base}, {"retargeted_to_mlx_pin", &rep.pin}} {
		f, ok := up.Get(k.key)
		if !ok || !fullHex(f.Value) {
			return nil, fail.Configf("%s: %s must be a full 40-hex commit; write `%s: <commit>`", upFile, k.key, k.key)
		}
		*k.dst = f.Value
	}
	fixesFile := filepath.Join(o.Overlay, records.LocalFixesName)
	fixesData, err := records.ReadRecord(fixesFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("forksync: reading %s: %w", fixesFile, err)
	}
	layout, err := records.ReadLayout(o.Overlay, o.fork.Dirs, nil)
	if err != nil {
		return nil, err
	}
	fork, err := openRepo(ctx, o.cacheRoot, o.fork.Git, rep.fork, rep.base)
	if err != nil {
		return nil, err
	}
	mlx := fork
	if o.upstream != "" {
		if mlx, err = openRepo(ctx, o.cacheRoot, o.upstream, rep.pin); err != nil {
			return nil, err
		}
	} else if !fork.has(ctx, rep.pin) {
		return nil, fail.Configf("the pin %s is not in the fork %s; set source.git in mlxbuild.yaml so mlxbuild can read MLX at the pin", short(rep.pin), o.fork.Git)
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
	if err := rep.compare(ctx, m, layout, fresh, resFile, o.write); err != nil {
		return nil, err
	}
	// The offline half is the records gate, the same verdict as verify's
	// records check; it runs last, so that it reads a residual -write wrote.
	gate, _ := records.Gate{Overlay: o.Overlay, Pin: o.pin, BackendDirs: o.fork.Dirs}.Check()
	for _, p := range gate {
		if p.File == resFile && rep.residualChanged && !o.write && p.Message != records.ResidualName+": missing" {
			continue // said once, as "the residual changed"
		}
		rep.add(p.File, p.Line, p.Message, p.Fix)
	}
	return rep, nil
}

func (r *checkReport) add(file string, line int, msg, fix string) {
	r.Findings = append(r.Findings, finding{file: file, line: line, message: msg, fix: fix})
}

// backend compares the backend files with the fork commit.
func (r *checkReport) backend(ctx context.Context, fork *repo, l *records.Layout, fixes, fixesFile string) error {
	if len(l.BackendDirs) == 0 {
		r.notes = append(r.notes, "the overlay has no backend directory (fork.dirs): no backend file to compare with the fork")
		return nil
	}
	theirs, err := fork.readTree(ctx, r.fork, l.BackendDirs)
	if err != nil {
		return err
	}
	ours := l.Backend()
	r.backendFiles = len(ours)
	in := map[string]bool{}
	for _, p := range ours {
		in[p] = true
		t, ok := theirs[p]
		switch {
		case !ok:
			r.localOnly = append(r.localOnly, p)
		case sha(t.data) != l.Hashes[p]:
			r.modified = append(r.modified, p)
		}
	}
	for p := range theirs {
		if !in[p] {
			r.dropped = append(r.dropped, p)
		}
	}
	sort.Strings(r.dropped)
	for _, set := range []struct {
		paths []string
		what  string
	}{{r.modified, "differs from the fork"}, {r.localOnly, "is not in the fork (local-only)"}, {r.dropped, "is in the fork but not in the overlay (dropped)"}} {
		for _, p := range set.paths {
			if !l.Mentions(fixes, p) {
				r.add(fixesFile, 0, fmt.Sprintf("%s %s at %s, but no entry names it", p, set.what, short(r.fork)),
					"add (or extend) the LOCAL_FIXES.md entry for the change, naming the file by its path or its path under the backend directory")
			}
		}
	}
	return nil
}

// hooks lists the MLX files the fork changes that the overlay does not carry.
func (r *checkReport) hooks(ctx context.Context, fork *repo, l *records.Layout, fixes, fixesFile string) error {
	out, err := git(ctx, fork.dir, "diff", "--name-only", "--no-renames", r.base, r.fork, "--")
	if err != nil {
		return fmt.Errorf("forksync: listing what the fork changes (%s..%s): %w", short(r.base), short(r.fork), err)
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
func (r *checkReport) residual(ctx context.Context, m *merger, fork, mlx *repo, l *records.Layout) (map[string]freshResidual, error) {
	core := l.Core()
	r.core = len(core)
	pin, err := mlx.readTree(ctx, r.pin, core)
	if err != nil {
		return nil, err
	}
	base, err := fork.readTree(ctx, r.base, core)
	if err != nil {
		return nil, err
	}
	theirs, err := fork.readTree(ctx, r.fork, core)
	if err != nil {
		return nil, err
	}
	fresh := map[string]freshResidual{}
	for _, p := range core {
		t, inFork := theirs[p]
		recon, conflicted, err := m.reconstruct(ctx, pin[p].data, base[p].data, t.data, inFork, p)
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
			r.residuals = append(r.residuals, residualFile{path: p, plus: plus, minus: minus, conflicted: conflicted})
		}
		if _, inPin := pin[p]; !inPin && !inFork {
			r.notes = append(r.notes, fmt.Sprintf("%s is in neither the pin nor the fork: the overlay adds it", p))
		}
	}
	return fresh, nil
}

// compare holds the fresh residual against CORE_RESIDUAL.diff, and writes
// it when asked.
func (r *checkReport) compare(ctx context.Context, m *merger, l *records.Layout, fresh map[string]freshResidual, resFile string, write bool) error {
	data, err := records.ReadRecord(resFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("forksync: reading %s: %w", resFile, err)
	}
	if errors.Is(err, os.ErrNotExist) && len(fresh) == 0 && !write {
		// The gate still asks for the record when there are core files.
		r.notes = append(r.notes, "every core file is pin + fork delta")
		return nil
	}
	old, _ := records.ParseResidual(data)
	if err := old.CheckPaths(resFile); err != nil {
		return err
	}
	// A recorded patch still holds when it turns the reconstruction into
	// the overlay's file; only then does the recorded text need no change.
	type change struct{ what, hunks string }
	var changed []change
	for _, rf := range r.residuals {
		p, ok := old.Patch(rf.path)
		f := fresh[rf.path]
		switch {
		case !ok:
			changed = append(changed, change{rf.path + " (new residual)", f.patch})
		case !m.applies(ctx, p.Text, f.recon, f.own, rf.path):
			// What the reference prints: the recorded patch against the
			// one the files give now, so the reviewer sees the hunk.
			d, err := m.unifiedDiff(ctx, []byte(p.Text), []byte(f.patch), rf.path)
			if err != nil {
				return err
			}
			changed = append(changed, change{rf.path + " (residual differs)", relabel(d, rf.path)})
		}
	}
	for _, p := range old.Patches {
		if _, ok := fresh[p.Path]; !ok {
			changed = append(changed, change{p.Path + " (no residual any more)", ""})
		}
	}
	r.residualChanged = len(changed) > 0
	if !write {
		for _, c := range changed {
			r.Findings = append(r.Findings, finding{file: resFile, message: "the core residual changed: " + c.what, detail: c.hunks,
				fix: "review it (the hunks below; git diff the file after -write), note it in LOCAL_FIXES.md, then run overlay:checkRecords -write"})
		}
		return nil
	}
	next := records.Residual{
		Pin:    records.Field{Value: r.pin},
		Fork:   records.Field{Value: r.fork},
		Base:   records.Field{Value: r.base},
		Hashes: map[string]records.Field{},
		Notes:  map[string]records.Field{},
	}
	for _, p := range l.Core() {
		next.Hashes[p] = records.Field{Value: l.Hashes[p]}
	}
	for _, rf := range r.residuals {
		next.Patches = append(next.Patches, records.FilePatch{Path: rf.path, Text: fresh[rf.path].patch})
		if n, ok := old.Notes[rf.path]; ok {
			next.Notes[rf.path] = n
		}
	}
	wrote, err := atomicfile.WriteIfChanged(resFile, next.Render(), 0o644)
	if err != nil {
		return err
	}
	if wrote {
		r.wrote = resFile
	}
	return nil
}

// Render writes the report as terse lines, findings last.
func (r *checkReport) Render(w io.Writer) {
	fmt.Fprintf(w, "backend: %s, %d modified from fork %s, %d local-only, %d dropped\n",
		plural.Count(r.backendFiles, "file"), len(r.modified), short(r.fork), len(r.localOnly), len(r.dropped))
	fmt.Fprintf(w, "core: %s, rebuilt from pin %s + fork %s (merge base %s)\n", plural.Count(r.core, "file"), short(r.pin), short(r.fork), short(r.base))
	for _, rf := range r.residuals {
		tag := ""
		if rf.conflicted {
			tag = " (pin + fork delta conflicts; the overlay resolves them)"
		}
		fmt.Fprintf(w, "  residual %s: +%d -%d%s\n", rf.path, rf.plus, rf.minus, tag)
	}
	for _, n := range r.notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.wrote != "" {
		fmt.Fprintf(w, "wrote %s\n", r.wrote)
	}
	for _, f := range r.Findings {
		loc := f.file
		if f.line > 0 {
			loc = fmt.Sprintf("%s:%d", f.file, f.line)
		}
		fmt.Fprintf(w, "%s: %s; %s\n", loc, f.message, f.fix)
		for l := range strings.Lines(f.detail) {
			fmt.Fprintf(w, "    %s", l)
		}
	}
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "records agree with the overlay, the fork and the pin\n")
	}
}

// relabel names the two sides of a diff between residual patches of path
// as the recorded one and the one the files give now.
func relabel(diff, path string) string {
	diff = strings.Replace(diff, "--- a/"+path+"\n", "--- "+records.ResidualName+" (recorded) "+path+"\n", 1)
	return strings.Replace(diff, "+++ b/"+path+"\n", "+++ "+records.ResidualName+" (now) "+path+"\n", 1)
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
