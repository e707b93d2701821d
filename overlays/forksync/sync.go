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
	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// SyncOptions say what to sync.
type SyncOptions struct {
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
}

// SyncResult says what a sync did, or would have done.
type SyncResult struct {
	From, To       string // fork commits (UPSTREAM's before, the new one)
	Base, NewBase  string // the fork's merge base with MLX, before and after
	Added, Updated []string
	Merged         []string // files where local and fork changes were combined
	Removed        []string
	LocalOnly      int // local-only files kept as they were
	Conflicts      []Conflict
	Staged         string // the staging directory left for a conflicted sync
	Notes          []string
}

// Changed reports whether the sync changed the overlay.
func (r *SyncResult) Changed() bool {
	return len(r.Added)+len(r.Updated)+len(r.Merged)+len(r.Removed) > 0 || r.From != r.To || r.Base != r.NewBase
}

// Conflict is a file the sync could not merge by itself.
type Conflict struct {
	Path   string // relative to the overlay
	Staged string // the staged copy, with conflict markers where it has them
	Why    string
}

// ConflictError is Sync's error when a file did not merge: nothing in the
// overlay changed.
type ConflictError struct{ Result *SyncResult }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "overlay sync to %s stopped: %d file(s) did not merge, and the overlay was left as it was:\n", short(e.Result.To), len(e.Result.Conflicts))
	for _, c := range e.Result.Conflicts {
		fmt.Fprintf(&b, "  %s: %s\n    staged copy: %s\n", c.Path, c.Why, c.Staged)
	}
	fmt.Fprintf(&b, "resolve them in the overlay by hand (the staged copies in %s show the merge), record the change in LOCAL_FIXES.md, then run the sync again", e.Result.Staged)
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
func Sync(ctx context.Context, o SyncOptions) (*SyncResult, error) {
	unlock, err := lockOverlay(ctx, o.CacheRoot, o.Overlay)
	if err != nil {
		return nil, err
	}
	defer unlock()
	upFile := filepath.Join(o.Overlay, records.UpstreamName)
	upData, err := os.ReadFile(upFile)
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
	res := &SyncResult{}
	if b, ok := up.Get("fork_upstream_merge_base"); ok && b.Value != "" {
		if err := checkRecordRev(upFile, b); err != nil {
			return nil, err
		}
		res.Base = b.Value
	}
	revs := []string{from.Value, o.Commit}
	if res.Base != "" {
		revs = append(revs, res.Base)
	}
	repo, err := openRepo(ctx, o.CacheRoot, o.Fork.Git, revs...)
	if err != nil {
		return nil, err
	}
	if res.From, err = repo.Resolve(ctx, from.Value); err != nil {
		return nil, fmt.Errorf("%w (UPSTREAM commit:)", err)
	}
	if res.To, err = repo.Resolve(ctx, o.Commit); err != nil {
		return nil, err
	}
	res.NewBase = res.Base
	if o.Upstream != "" {
		nb, note := repo.mergeBase(ctx, res.To, o.Upstream)
		if note != "" {
			res.Notes = append(res.Notes, note)
		} else {
			res.NewBase = nb
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
	p := &syncPlan{res: res, ours: ours, write: Files{}, m: &merger{dir: scratch}}
	if err := p.dirs(ctx, repo, o.Fork.Dirs); err != nil {
		return nil, err
	}
	if err := p.core(ctx, repo, o.Fork.Core); err != nil {
		return nil, err
	}
	var set [][2]string
	if res.To != from.Value {
		set = append(set, [2]string{"commit", res.To})
	}
	if res.NewBase != res.Base {
		set = append(set, [2]string{"fork_upstream_merge_base", res.NewBase})
	}
	if len(set) > 0 {
		p.write[records.UpstreamName] = Blob{Data: setUpstream(upData, set), Exec: ours[records.UpstreamName].Exec}
	}
	for _, l := range [][]string{res.Added, res.Updated, res.Merged, res.Removed} {
		sort.Strings(l)
	}
	if len(p.write) == 0 && len(p.remove) == 0 {
		return res, nil
	}
	staged := stageDir(o.Overlay)
	conflicted, err := commit(o.Overlay, staged, p.write, p.remove, res.Conflicts)
	if err != nil {
		return nil, err
	}
	if conflicted {
		res.Staged = staged
		return res, &ConflictError{Result: res}
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
	res    *SyncResult
	ours   Files
	write  Files
	remove []string
	m      *merger
}

// dirs carries the fork's change to its backend directories.
func (p *syncPlan) dirs(ctx context.Context, repo *Repo, dirs []string) error {
	base, err := repo.readTree(ctx, p.res.From, dirs)
	if err != nil {
		return err
	}
	theirs, err := repo.readTree(ctx, p.res.To, dirs)
	if err != nil {
		return err
	}
	paths := map[string]bool{}
	for _, fs := range []Files{base, theirs} {
		for path := range fs {
			paths[path] = true
		}
	}
	for path := range p.ours {
		if under(path, dirs) {
			paths[path] = true
		}
	}
	l := labels{"overlay", "fork@" + short(p.res.From), "fork@" + short(p.res.To)}
	for path := range paths {
		b, inBase := base[path]
		t, inTheirs := theirs[path]
		o, inOurs := p.ours[path]
		switch {
		case inOurs && !inBase && !inTheirs:
			p.res.LocalOnly++
		case !inOurs && !inBase && inTheirs:
			p.add(path, t)
		case !inOurs && inBase && !inTheirs:
			// Gone from both.
		case !inOurs && inBase && inTheirs:
			if !bytes.Equal(b.Data, t.Data) {
				p.conflict(path, t, "removed from the overlay, but the fork changed it; add the fork's version back or drop it again, and say which in LOCAL_FIXES.md")
			}
		case inOurs && inBase && !inTheirs:
			if bytes.Equal(o.Data, b.Data) {
				p.res.Removed = append(p.res.Removed, path)
				p.remove = append(p.remove, path)
			} else {
				p.conflict(path, o, "the fork removed it, but the overlay changed it; keep it as a local-only file (and list it in LOCAL_FIXES.md) or delete it")
			}
		default: // in ours, and in base or theirs (or both)
			var baseData []byte
			if inBase {
				baseData = b.Data
			}
			if err := p.merge(ctx, path, o, Blob{Data: baseData, Exec: b.Exec}, t, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// core carries the fork's change to the MLX core files it modifies.
func (p *syncPlan) core(ctx context.Context, repo *Repo, core []string) error {
	if len(core) == 0 {
		return nil
	}
	old, err := repo.readTree(ctx, p.res.From, core)
	if err != nil {
		return err
	}
	theirs, err := repo.readTree(ctx, p.res.To, core)
	if err != nil {
		return err
	}
	baseCommit := p.res.From
	base := old
	if p.res.NewBase != p.res.Base && p.res.NewBase != "" {
		baseCommit = p.res.NewBase
		if base, err = repo.readTree(ctx, baseCommit, core); err != nil {
			return err
		}
	}
	l := labels{"overlay", "fork-base@" + short(baseCommit), "fork@" + short(p.res.To)}
	for _, path := range core {
		path = trimSlash(path)
		o, inOurs := p.ours[path]
		t, inTheirs := theirs[path]
		c, inOld := old[path]
		switch {
		case inOld && inTheirs && bytes.Equal(c.Data, t.Data) && c.Exec == t.Exec:
			// The fork did not touch it since the overlay's commit.
		case !inOurs:
			p.res.Notes = append(p.res.Notes, fmt.Sprintf("core file %s (fork.core) is not in the overlay; copy it in, retargeted to the pin, if the build needs the fork's change", path))
		case !inTheirs:
			p.conflict(path, o, fmt.Sprintf("the fork at %s has no %s; drop it from fork.core, or keep it as a local file and say so in LOCAL_FIXES.md", short(p.res.To), path))
		default:
			if err := p.merge(ctx, path, o, base[path], t, l); err != nil {
				return err
			}
		}
	}
	return nil
}

// merge records the three-way merge of one file.
func (p *syncPlan) merge(ctx context.Context, path string, o, b, t Blob, l labels) error {
	l.ours += ":" + path
	data, conflicted, err := p.m.merge3(ctx, o.Data, b.Data, t.Data, l)
	if err != nil {
		return fmt.Errorf("%w (merging %s)", err, path)
	}
	exec := o.Exec
	if o.Exec == b.Exec {
		exec = t.Exec
	}
	if conflicted {
		why := "the overlay and the fork changed the same lines; the staged copy has conflict markers (<<<<<<< overlay, ||||||| base, >>>>>>> fork)"
		if isBinary(data) {
			why = "a binary file both the overlay and the fork changed; pick one version"
		}
		p.conflict(path, Blob{Data: data, Exec: exec}, why)
		return nil
	}
	if bytes.Equal(data, o.Data) && exec == o.Exec {
		return nil
	}
	switch {
	case bytes.Equal(o.Data, b.Data) && o.Exec == b.Exec:
		p.res.Updated = append(p.res.Updated, path)
	default:
		p.res.Merged = append(p.res.Merged, path)
	}
	p.write[path] = Blob{Data: data, Exec: exec}
	return nil
}

func (p *syncPlan) add(path string, b Blob) {
	p.res.Added = append(p.res.Added, path)
	p.write[path] = b
}

func (p *syncPlan) conflict(path string, staged Blob, why string) {
	p.res.Conflicts = append(p.res.Conflicts, Conflict{Path: path, Why: why})
	p.write[path] = staged
}

// mergeBase fetches upstream's HEAD into the fork's mirror (by id, into
// FETCH_HEAD: the mirror's refs stay the fork's) and returns the merge base
// of commit with it. A note instead says why it kept UPSTREAM's.
func (r *Repo) mergeBase(ctx context.Context, commit, upstream string) (string, string) {
	if _, err := git(ctx, r.Dir, "fetch", "--quiet", "--no-tags", "--", upstream, "HEAD"); err != nil {
		return "", fmt.Sprintf("could not fetch MLX's HEAD from %s to compute the fork's merge base (%v); UPSTREAM's fork_upstream_merge_base was kept", upstream, err)
	}
	head, err := git(ctx, r.Dir, "rev-parse", "FETCH_HEAD")
	if err != nil {
		return "", fmt.Sprintf("reading FETCH_HEAD after fetching %s: %v; UPSTREAM's fork_upstream_merge_base was kept", upstream, err)
	}
	mb, err := git(ctx, r.Dir, "merge-base", "--end-of-options", commit, head)
	if err != nil || mb == "" {
		return "", fmt.Sprintf("fork commit %s and MLX's HEAD %s have no common ancestor; UPSTREAM's fork_upstream_merge_base was kept", short(commit), short(head))
	}
	return mb, ""
}
