package forksync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// syncOptions say what to sync.
type syncOptions struct {
	CacheRoot string // the shared git mirrors live under <CacheRoot>/src/git
	Overlay   string // the overlay directory (absolute)
	// Fork is the project's fork entry; Fork.Git is a URL or an absolute
	// path (ForBackend resolves relative ones).
	Fork configs.Fork
	// Upstream is the MLX repository (source.git, or a source.dir that is
	// a git checkout) whose HEAD the fork's merge base is computed
	// against; "" keeps UPSTREAM's merge base.
	Upstream string
	Commit   string // the fork commit to sync to: an id or a branch
	// Pin is the MLX commit the overlay builds on (source.pin); "" takes
	// UPSTREAM's retargeted_to_mlx_pin. A fork commit that merged MLX past
	// it is refused.
	Pin string
}

// syncResult says what a sync did, or would have done.
type syncResult struct {
	from, to       string // fork commits (UPSTREAM's before, the new one)
	base, newBase  string // the fork's merge base with MLX, before and after
	added, updated []string
	merged         []string // files where local and fork changes were combined
	removed        []string
	localOnly      int // local-only files kept as they were
	conflicts      []conflict
	staged         string // the staging directory left for a conflicted sync
	notes          []string
}

// changed reports whether the sync changed the overlay.
func (r *syncResult) changed() bool {
	return len(r.added)+len(r.updated)+len(r.merged)+len(r.removed) > 0 || r.from != r.to || r.base != r.newBase
}

// conflict is a file the sync could not merge by itself.
type conflict struct {
	path   string // relative to the overlay
	staged string // the staged copy, with conflict markers where it has them
	why    string
}

// ConflictError is Sync's error when a file did not merge: nothing in the
// overlay changed.
type ConflictError struct{ result *syncResult }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "overlay sync to %s stopped: %s did not merge, and the overlay was left as it was:\n", short(e.result.to), plural.Count(len(e.result.conflicts), "file"))
	for _, c := range e.result.conflicts {
		fmt.Fprintf(&b, "  %s: %s\n    staged copy: %s\n", c.path, c.why, c.staged)
	}
	fmt.Fprintf(&b, "resolve them in the overlay by hand (the staged copies in %s show the merge), record the change in LOCAL_FIXES.md, then run the sync again", e.result.staged)
	return b.String()
}

// Sync moves the overlay to the fork commit o.Commit:
//
//   - Files under the fork's directories take the fork's change from
//     UPSTREAM's commit to the new one, merged three-way with the overlay's
//     (base: the fork at UPSTREAM's commit, ours: the overlay, theirs: the
//     fork at the new commit). Local-only files stay as they are.
//   - Each core file takes the fork's change too. When the fork's merge
//     base with MLX did not move, the base is the fork's file at UPSTREAM's
//     commit, so only what the fork changed since comes in. When it moved
//     (the fork merged newer MLX), the base is the file at the new merge
//     base, so the fork's own change comes in without the upstream changes
//     it merged: the overlay stays retargeted to its pin (overlay:drift
//     shows those).
//   - UPSTREAM's commit, and its fork_upstream_merge_base when it moved,
//     are rewritten in place.
//
// Everything is staged in a directory beside the overlay and swapped in
// only when every file merged; on a conflict the overlay is left exactly as
// it was and the error is a *ConflictError naming each file and its staged
// copy. A sync to the commit the overlay came from changes nothing.
func Sync(ctx context.Context, o syncOptions) (*syncResult, error) {
	unlock, err := lockOverlay(ctx, o.CacheRoot, o.Overlay)
	if err != nil {
		return nil, err
	}
	defer unlock()
	upFile := filepath.Join(o.Overlay, records.UpstreamName)
	upData, err := records.ReadRecord(upFile)
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("forksync: reading %s: %w; an overlay synced from a fork keeps UPSTREAM at its root with `commit: <fork commit>`", upFile, err)
	}
	up, _ := records.ParseUpstream(upData)
	from, ok := up.Get("commit")
	if !ok || from.Value == "" {
		return nil, fmt.Errorf("forksync: %s has no `commit:` line; add `commit: <the fork commit the overlay was copied from>`", upFile)
	}
	if err := checkRecordRev(upFile, from); err != nil {
		return nil, err
	}
	if err := checkArgRev("overlay sync: the fork commit", o.Commit, "give a commit id or a branch of the fork"); err != nil {
		return nil, err
	}
	if err := checkRepos(o.Fork.Git, o.Upstream); err != nil {
		return nil, err
	}
	res := &syncResult{}
	if b, ok := up.Get("fork_upstream_merge_base"); ok && b.Value != "" {
		if err := checkRecordRev(upFile, b); err != nil {
			return nil, err
		}
		res.base = b.Value
	}
	revs := []string{from.Value, o.Commit}
	if res.base != "" {
		revs = append(revs, res.base)
	}
	repo, err := openRepo(ctx, o.CacheRoot, o.Fork.Git, revs...)
	if err != nil {
		return nil, err
	}
	if res.from, err = repo.resolve(ctx, from.Value); err != nil {
		return nil, fmt.Errorf("%w (UPSTREAM commit:)", err)
	}
	if res.to, err = repo.resolve(ctx, o.Commit); err != nil {
		return nil, err
	}
	res.newBase = res.base
	if o.Upstream != "" {
		nb, head, note := repo.mergeBase(ctx, res.to, o.Upstream)
		if note != "" {
			res.notes = append(res.notes, note)
		} else {
			pin := o.Pin
			if f, ok := up.Get("retargeted_to_mlx_pin"); pin == "" && ok {
				pin = f.Value
			}
			if err := repo.checkNotAhead(ctx, res.to, head, pin, o.Upstream); err != nil {
				return nil, err
			}
			res.newBase = nb
		}
	}

	ours, err := readOverlay(o.Overlay)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "mlxbuild-sync-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	p := &syncPlan{res: res, ours: ours, write: files{}, m: &merger{dir: scratch}}
	if err := p.dirs(ctx, repo, o.Fork.Dirs); err != nil {
		return nil, err
	}
	p.first = p.vendoring(ctx, repo)
	if err := p.core(ctx, repo, o.Fork.Core); err != nil {
		return nil, err
	}
	if p.first {
		if err := p.vendorCore(ctx, repo, o, up); err != nil {
			return nil, err
		}
	}
	var set [][2]string
	if res.to != from.Value {
		set = append(set, [2]string{"commit", res.to})
	}
	if res.newBase != res.base {
		set = append(set, [2]string{"fork_upstream_merge_base", res.newBase})
	}
	if len(set) > 0 {
		p.write[records.UpstreamName] = blob{data: setUpstream(upData, set), exec: ours[records.UpstreamName].exec}
	}
	for _, l := range [][]string{res.added, res.updated, res.merged, res.removed} {
		sort.Strings(l)
	}
	if len(p.write) == 0 && len(p.remove) == 0 {
		return res, nil
	}
	staged := stageDir(o.Overlay)
	conflicted, err := commit(o.Overlay, staged, p.write, p.remove, res.conflicts)
	if err != nil {
		return nil, err
	}
	if conflicted {
		res.staged = staged
		return res, &ConflictError{result: res}
	}
	return res, nil
}

// syncLock is the lock of one overlay's syncs, under the cache rather than
// beside the overlay, which usually sits in the user's repository.
func syncLock(cacheRoot, overlay string) string {
	sum := sha256.Sum256([]byte(overlay))
	return filepath.Join(cacheRoot, "sync", hex.EncodeToString(sum[:8])+".lock")
}

// syncPlan collects what a sync writes and removes.
type syncPlan struct {
	res    *syncResult
	ours   files
	write  files
	remove []string
	m      *merger
	first  bool // the overlay holds nothing of the fork yet (see vendoring)
}

// dirs carries the fork's change to its backend directories.
func (p *syncPlan) dirs(ctx context.Context, repo *repo, dirs []string) error {
	base, err := repo.readTree(ctx, p.res.from, dirs)
	if err != nil {
		return err
	}
	theirs, err := repo.readTree(ctx, p.res.to, dirs)
	if err != nil {
		return err
	}
	paths := map[string]bool{}
	for _, fs := range []files{base, theirs} {
		for path := range fs {
			paths[path] = true
		}
	}
	for path := range p.ours {
		if under(path, dirs) {
			paths[path] = true
		}
	}
	l := labels{"overlay", "fork@" + short(p.res.from), "fork@" + short(p.res.to)}
	for path := range paths {
		b, inBase := base[path]
		t, inTheirs := theirs[path]
		o, inOurs := p.ours[path]
		switch {
		case inOurs && !inBase && !inTheirs:
			p.res.localOnly++
		case !inOurs && !inBase && inTheirs:
			p.add(path, t)
		case !inOurs && inBase && !inTheirs:
			// Gone from both.
		case !inOurs && inBase && inTheirs:
			if !bytes.Equal(b.data, t.data) {
				p.conflict(path, t, "removed from the overlay, but the fork changed it; add the fork's version back or drop it again, and say which in LOCAL_FIXES.md")
			}
		case inOurs && inBase && !inTheirs:
			if bytes.Equal(o.data, b.data) {
				p.res.removed = append(p.res.removed, path)
				p.remove = append(p.remove, path)
			} else {
				p.conflict(path, o, "the fork removed it, but the overlay changed it; keep it as a local-only file (and list it in LOCAL_FIXES.md) or delete it")
			}
		default: // in ours, and in base or theirs (or both)
			var baseData []byte
			if inBase {
				baseData = b.data
			}
			if err := p.merge(ctx, path, o, blob{data: baseData, exec: b.exec}, t, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// core carries the fork's change to the MLX core files it modifies.
func (p *syncPlan) core(ctx context.Context, repo *repo, core []string) error {
	if len(core) == 0 {
		return nil
	}
	old, err := repo.readTree(ctx, p.res.from, core)
	if err != nil {
		return err
	}
	theirs, err := repo.readTree(ctx, p.res.to, core)
	if err != nil {
		return err
	}
	baseCommit := p.res.from
	base := old
	if p.res.newBase != p.res.base && p.res.newBase != "" {
		baseCommit = p.res.newBase
		if base, err = repo.readTree(ctx, baseCommit, core); err != nil {
			return err
		}
	}
	l := labels{"overlay", "fork-base@" + short(baseCommit), "fork@" + short(p.res.to)}
	for _, path := range core {
		path = trimSlash(path)
		o, inOurs := p.ours[path]
		t, inTheirs := theirs[path]
		c, inOld := old[path]
		switch {
		case inOld && inTheirs && bytes.Equal(c.data, t.data) && c.exec == t.exec:
			// The fork did not touch it since the overlay's commit.
		case !inOurs && p.first:
			// vendorCore brings it.
		case !inOurs:
			p.res.notes = append(p.res.notes, fmt.Sprintf("core file %s (fork.core) is not in the overlay; copy it in, retargeted to the pin, if the build needs the fork's change", path))
		case !inTheirs:
			p.conflict(path, o, fmt.Sprintf("the fork at %s has no %s; drop it from fork.core, or keep it as a local file and say so in LOCAL_FIXES.md", short(p.res.to), path))
		default:
			if err := p.merge(ctx, path, o, base[path], t, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge records the three-way merge of one file.
func (p *syncPlan) merge(ctx context.Context, path string, o, b, t blob, l labels) error {
	l.ours += ":" + path
	data, conflicted, err := p.m.merge3(ctx, o.data, b.data, t.data, l)
	if err != nil {
		return fmt.Errorf("%w (merging %s)", err, path)
	}
	exec := o.exec
	if o.exec == b.exec {
		exec = t.exec
	}
	if conflicted {
		why := "the overlay and the fork changed the same lines; the staged copy has conflict markers (<<<<<<< overlay, ||||||| base, >>>>>>> fork)"
		if isBinary(data) {
			why = "a binary file both the overlay and the fork changed; pick one version"
		}
		p.conflict(path, blob{data: data, exec: exec}, why)
		return nil
	}
	if bytes.Equal(data, o.data) && exec == o.exec {
		return nil
	}
	switch {
	case bytes.Equal(o.data, b.data) && o.exec == b.exec:
		p.res.updated = append(p.res.updated, path)
	default:
		p.res.merged = append(p.res.merged, path)
	}
	p.write[path] = blob{data: data, exec: exec}
	return nil
}

func (p *syncPlan) add(path string, b blob) {
	p.res.added = append(p.res.added, path)
	p.write[path] = b
}

func (p *syncPlan) conflict(path string, staged blob, why string) {
	p.res.conflicts = append(p.res.conflicts, conflict{path: path, why: why})
	p.write[path] = staged
}

// mergeBase fetches upstream's HEAD into the fork's mirror (by id, into
// FETCH_HEAD: the mirror's refs stay the fork's) and returns the merge base
// of commit with it, and that HEAD. A note instead says why it kept
// UPSTREAM's.
func (r *repo) mergeBase(ctx context.Context, commit, upstream string) (mb, head, note string) {
	if _, err := git(ctx, r.dir, "fetch", "--quiet", "--no-tags", "--", upstream, "HEAD"); err != nil {
		return "", "", fmt.Sprintf("could not fetch MLX's HEAD from %s to compute the fork's merge base (%v); UPSTREAM's fork_upstream_merge_base was kept, and the fork was not checked against the pin", upstream, err)
	}
	head, err := git(ctx, r.dir, "rev-parse", "FETCH_HEAD")
	if err != nil {
		return "", "", fmt.Sprintf("reading FETCH_HEAD after fetching %s: %v; UPSTREAM's fork_upstream_merge_base was kept, and the fork was not checked against the pin", upstream, err)
	}
	mb, err = git(ctx, r.dir, "merge-base", "--end-of-options", commit, head)
	if err != nil || mb == "" {
		return "", "", fmt.Sprintf("fork commit %s and MLX's HEAD %s have no common ancestor; UPSTREAM's fork_upstream_merge_base was kept", short(commit), short(head))
	}
	return mb, head, ""
}
