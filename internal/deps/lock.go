package deps

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// LockSource says where deps:lock may resolve a request: a local mirror
// (then never the network), or the network.
type LockSource struct {
	Store  Store
	Mirror string
	Client *http.Client
}

// Locked is a request resolved: the dependency as the lock declares it
// (tag's commit, sha256) and the archive the cache will store.
type Locked struct {
	Dep     configs.Dependency
	Archive []byte
	From    string
}

// fullCommit is compiled on first use, not at every start (lazyregexp).
var fullCommit = lazyregexp.New(`^[0-9a-f]{40}$`)

// LockRequest resolves what the tree asks for. like, when not nil, is the
// spec's declaration of the same name: its paths and layout shape a git
// archive the same way. Nothing is written to the verified store: the
// caller puts every archive in once all requests resolved (Put), so a bad
// one leaves the cache and the lock file as they were.
func LockRequest(ctx context.Context, r Request, like *configs.Dependency, src LockSource) (Locked, error) {
	d := configs.Dependency{Name: r.Name, Providers: []string{"cache"}}
	switch {
	case r.Git != "":
		d.Git = r.Git
		if like != nil && like.Git != "" {
			d.Paths, d.Layout = like.Paths, like.Layout
		}
		return lockGit(ctx, r, d, src)
	case r.URL != "":
		d.URL = r.URL
		return lockURL(ctx, r, d, src)
	}
	return Locked{}, fail.Configf("%s: %s asks for neither GIT_REPOSITORY nor URL; deps:lock cannot pin it (declare it with provider dir or system in the spec override)", r.At, r.Name)
}

func lockGit(ctx context.Context, r Request, d configs.Dependency, src LockSource) (Locked, error) {
	g := gitrun.Runner{Extra: []string{"GIT_CONFIG_NOSYSTEM=1"}}
	if r.Tag == "" {
		return Locked{}, fail.Configf("%s: %s gives GIT_REPOSITORY without GIT_TAG: there is nothing to pin", r.At, r.Name)
	}
	if err := gitrun.CheckRev(r.Tag); err != nil {
		return Locked{}, fail.Configf("%s: GIT_TAG %q of %s %v", r.At, r.Tag, r.Name, err)
	}
	var repo, from string
	if src.Mirror != "" {
		dir, err := mirrorRepo(ctx, g, r, d, src.Mirror)
		if err != nil {
			return Locked{}, err
		}
		repo, from = dir, dir
		commit, tag, err := tagCommit(ctx, g, repo, r.Tag)
		if err != nil {
			return Locked{}, fail.Configf("%s: %s asks for %s, which is not in the mirror's repository %s: put that tag (or commit) there, or fix GIT_TAG", r.At, r.Name, r.Tag, repo)
		}
		d.Commit, d.Tag = commit, tag
	} else {
		commit, tag, err := remoteTagCommit(ctx, g, r)
		if err != nil {
			return Locked{}, err
		}
		d.Commit, d.Tag = commit, tag
		repo, from = src.Store.gitMirror(d), r.Git
		if err := fetchCommit(ctx, g, d, r.Git, repo); err != nil {
			return Locked{}, err
		}
	}
	data, err := gitArchive(ctx, g, d, from, repo)
	if err != nil {
		return Locked{}, err
	}
	d.SHA256 = sum(data)
	return Locked{Dep: d, Archive: data, From: from + " at " + d.Commit}, nil
}

// mirrorRepo finds the request's repository in the mirror and checks it
// is a git repository of its own (not a directory inside another one).
func mirrorRepo(ctx context.Context, g gitrun.Runner, r Request, d configs.Dependency, mirror string) (string, error) {
	var names []string
	for _, n := range MirrorCandidates(d) {
		if strings.HasSuffix(n, ".tar.gz") {
			continue // the hash-named archive: no hash yet
		}
		names = append(names, n)
		p := filepath.Join(mirror, n)
		if !isDir(p) {
			continue
		}
		// Its own repository, not a directory inside another one (a
		// mirror kept in the project's checkout); links resolved, as git
		// resolves them.
		gitDir, err := g.Output(ctx, p, "rev-parse", "--absolute-git-dir")
		abs, _ := filepath.Abs(p)
		if real, rerr := filepath.EvalSymlinks(abs); rerr == nil {
			abs = real
		}
		if real, rerr := filepath.EvalSymlinks(gitDir); rerr == nil {
			gitDir = real
		}
		if err != nil || (gitDir != abs && gitDir != filepath.Join(abs, ".git")) {
			return "", fail.Configf("%s: the mirror's %s for %s is not a git repository; put a clone of %s there (git clone --mirror -- %s %s)", r.At, p, r.Name, r.Git, r.Git, p)
		}
		return p, nil
	}
	return "", fail.Configf("%s: the mirror %s has no repository for %s (%s): looked for %s", r.At, mirror, r.Name, r.Git, strings.Join(names, ", "))
}

// tagCommit resolves GIT_TAG in a local repository: a tag first, then a
// commit (full or abbreviated). A commit is locked without a tag.
func tagCommit(ctx context.Context, g gitrun.Runner, repo, tag string) (commit, tagOut string, err error) {
	if c, err := g.Output(ctx, repo, "rev-parse", "--verify", "-q", "refs/tags/"+tag+"^{commit}"); err == nil && fullCommit.MatchString(c) {
		return c, tag, nil
	}
	if regexp.MustCompile(`^[0-9a-f]{7,40}$`).MatchString(tag) {
		if c, err := g.Output(ctx, repo, "rev-parse", "--verify", "-q", tag+"^{commit}"); err == nil && fullCommit.MatchString(c) {
			return c, "", nil
		}
	}
	return "", "", fmt.Errorf("no tag or commit %s", tag)
}

// remoteTagCommit asks the repository's server which commit the tag names
// (the only network use besides the fetch of that commit).
func remoteTagCommit(ctx context.Context, g gitrun.Runner, r Request) (string, string, error) {
	if fullCommit.MatchString(r.Tag) {
		return r.Tag, "", nil
	}
	out, err := g.Output(ctx, "", "ls-remote", "--", fileURL(r.Git), "refs/tags/"+r.Tag, "refs/tags/"+r.Tag+"^{}")
	if err != nil {
		return "", "", fmt.Errorf("%s: asking %s for the tag %s of %s: %w\n  on a machine without network, put a clone of it in a directory and run deps:lock -mirror=DIR", r.At, r.Git, r.Tag, r.Name, err)
	}
	commit := ""
	for _, line := range strings.Split(out, "\n") {
		c, ref, _ := strings.Cut(line, "\t")
		if ref == "refs/tags/"+r.Tag+"^{}" || ref == "refs/tags/"+r.Tag && commit == "" {
			commit = c
		}
	}
	if !fullCommit.MatchString(commit) {
		return "", "", fail.Configf("%s: %s has no tag %s (GIT_TAG of %s): fix GIT_TAG, or for a commit give its full 40-hex id", r.At, r.Git, r.Tag, r.Name)
	}
	return commit, r.Tag, nil
}

func lockURL(ctx context.Context, r Request, d configs.Dependency, src LockSource) (Locked, error) {
	var data []byte
	var from string
	var err error
	if src.Mirror != "" {
		var names []string
		for _, n := range MirrorCandidates(d) {
			if n == ArchiveExt(d) {
				continue // the hash-named archive: no hash yet
			}
			names = append(names, n)
			p := filepath.Join(src.Mirror, n)
			if st, serr := os.Stat(p); serr == nil && st.Mode().IsRegular() {
				data, err = os.ReadFile(p)
				from = p
				break
			}
		}
		if from == "" {
			return Locked{}, fail.Configf("%s: the mirror %s has no archive for %s (%s): looked for %s", r.At, src.Mirror, r.Name, r.URL, strings.Join(names, ", "))
		}
	} else {
		from = r.URL
		data, err = readURL(ctx, r.URL, src.Client)
	}
	if err != nil {
		return Locked{}, fmt.Errorf("%s: reading %s for %s: %w", r.At, from, r.Name, err)
	}
	got := sum(data)
	if want, ok := publishedSHA256(r.URLHash); ok && want != got {
		return Locked{}, fail.Configf("%s: %s from %s has sha256 %s, but the tree's URL_HASH (the hash upstream publishes) is %s: refused, nothing was cached or locked", r.At, r.Name, from, got, want)
	}
	d.SHA256 = got
	return Locked{Dep: d, Archive: data, From: from}, nil
}

// publishedSHA256 reads URL_HASH's SHA256=<hex>; other algorithms are
// not what the cache verifies.
func publishedSHA256(h string) (string, bool) {
	algo, v, ok := strings.Cut(h, "=")
	if !ok || !strings.EqualFold(algo, "SHA256") {
		return "", false
	}
	return strings.ToLower(v), true
}

func readURL(ctx context.Context, raw string, client *http.Client) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "file" {
		return os.ReadFile(u.Path)
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w\n  on a machine without network, copy the archive (%s) into a directory and run deps:lock -mirror=DIR", err, path.Base(u.Path))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// Put stores a locked archive, verified against the hash the lock gives.
func (s Store) Put(l Locked) error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return err
	}
	return s.put(l.Dep, l.From, bytes.NewReader(l.Archive))
}
