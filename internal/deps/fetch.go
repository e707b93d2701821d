package deps

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
)

// FetchOptions says where Fetch may get archives from.
type FetchOptions struct {
	// Mirror is a local directory to seed the cache from instead of the
	// network (air-gapped machines): archives by their URL's file name,
	// git repositories by the dependency's or the repository's name.
	Mirror string
	// Offline forbids the network: what the mirror lacks is an error.
	Offline bool
	// Client downloads URLs; nil means one with a 10-minute limit.
	Client *http.Client
	// Progress receives one line per dependency.
	Progress func(format string, args ...any)
}

// FetchResult is what Fetch did for one dependency.
type FetchResult struct {
	Dep  configs.Dependency
	From string // "cache" when it was there already
}

// Fetch puts every dependency whose providers include the cache into the
// store, verified: from the store itself (nothing to do), the mirror, or
// the network. It is the only part of mlxbuild that downloads. It goes on
// after a failure and returns every failure at the end.
func Fetch(ctx context.Context, store Store, list []configs.Dependency, o FetchOptions) ([]FetchResult, error) {
	if o.Progress == nil {
		o.Progress = func(string, ...any) {}
	}
	var out []FetchResult
	var errs []error
	seen := map[string]bool{}
	for _, d := range list {
		if !wantsCache(d) || seen[d.Name+"@"+d.SHA256] {
			continue
		}
		seen[d.Name+"@"+d.SHA256] = true
		from, err := fetchOne(ctx, store, d, o)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		o.Progress("%-14s %s", d.Name, from)
		out = append(out, FetchResult{Dep: d, From: from})
	}
	return out, errors.Join(errs...)
}

func wantsCache(d configs.Dependency) bool {
	for _, p := range d.Providers {
		if p == "cache" {
			return true
		}
	}
	return false
}

func fetchOne(ctx context.Context, store Store, d configs.Dependency, o FetchOptions) (string, error) {
	if store.Has(d) {
		if err := store.verify(d); err != nil {
			return "", err
		}
		return "cached " + d.SHA256[:12], nil
	}
	if o.Mirror != "" {
		for _, name := range MirrorCandidates(d) {
			p := filepath.Join(o.Mirror, name)
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			if d.Git != "" && st.IsDir() {
				if err := fetchGit(ctx, store, d, p); err != nil {
					return "", err
				}
				return "from mirror " + p, nil
			}
			if st.Mode().IsRegular() {
				f, err := os.Open(p)
				if err != nil {
					return "", err
				}
				err = store.put(d, p, f)
				f.Close()
				if err != nil {
					return "", err
				}
				return "from mirror " + p, nil
			}
		}
		if o.Offline {
			return "", fmt.Errorf("%s: the mirror %s has none of %s", d.Name, o.Mirror, mirrorNames(d))
		}
	}
	if o.Offline {
		return "", fmt.Errorf("%s: not in the cache, and the network is off", d.Name)
	}
	if d.Git != "" {
		if err := fetchGit(ctx, store, d, d.Git); err != nil {
			return "", err
		}
		return "from " + d.Git, nil
	}
	if err := download(ctx, store, d, o.Client); err != nil {
		return "", err
	}
	return "from " + d.URL, nil
}

// inMirror returns the mirror entry that holds d, or "".
func inMirror(d configs.Dependency, mirror string) string {
	if mirror == "" {
		return ""
	}
	for _, name := range MirrorCandidates(d) {
		p := filepath.Join(mirror, name)
		st, err := os.Stat(p)
		if err == nil && (st.Mode().IsRegular() || d.Git != "" && st.IsDir()) {
			return p
		}
	}
	return ""
}

// Seed copies the cache choices that are only in the mirror into the
// store, verified, without the network.
func Seed(ctx context.Context, store Store, choices []Choice, mirror string) error {
	var list []configs.Dependency
	for _, c := range choices {
		if c.Provider == "cache" && c.Seed != "" && !store.Has(c.Dep) {
			list = append(list, c.Dep)
		}
	}
	if len(list) == 0 {
		return nil
	}
	_, err := Fetch(ctx, store, list, FetchOptions{Mirror: mirror, Offline: true})
	return err
}

// MirrorCandidates are the names a mirror directory may hold d under, in
// the order they are tried: for an archive its URL's file name and
// <name><ext>; for git <name>.git, <name>, and the repository's own name.
func MirrorCandidates(d configs.Dependency) []string {
	if d.URL != "" {
		return unique([]string{urlBase(d.URL), d.Name + ArchiveExt(d), d.SHA256 + ArchiveExt(d)})
	}
	repo := strings.TrimSuffix(path.Base(strings.TrimRight(d.Git, "/")), ".git")
	return unique([]string{d.Name + ".git", d.Name, repo + ".git", repo, d.SHA256 + ".tar.gz"})
}

func unique(list []string) []string {
	var out []string
	for _, s := range list {
		dup := false
		for _, o := range out {
			dup = dup || o == s
		}
		if !dup && s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

func download(ctx context.Context, store Store, d configs.Dependency, client *http.Client) error {
	u, err := url.Parse(d.URL)
	if err != nil {
		return err
	}
	if u.Scheme == "file" {
		f, err := os.Open(u.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		defer f.Close()
		return store.put(d, d.URL, f)
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Minute}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.URL, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w\n  on a machine without network, copy the archive into a directory and run deps:fetch -mirror=DIR", d.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s from %s: HTTP %s", d.Name, d.URL, resp.Status)
	}
	return store.put(d, d.URL, resp.Body)
}

// fetchGit stores a deterministic archive of d's commit: git archive of
// the commit (file order and times come from the commit alone) compressed
// by gzip with an empty header, so the same commit always gives the same
// bytes and the spec's sha256 pins them. A remote src is fetched (one
// commit, shallow) into the store's bare mirror first; a local repository
// (a -mirror entry) is read in place, so only the commit's own objects, or
// with paths only those paths, need to be there.
func fetchGit(ctx context.Context, store Store, d configs.Dependency, src string) error {
	g := gitrun.Runner{Extra: []string{"GIT_CONFIG_NOSYSTEM=1"}}
	repo := src
	if !isDir(src) {
		repo = store.gitMirror(d)
		if err := fetchCommit(ctx, g, d, src, repo); err != nil {
			return err
		}
	}
	data, err := gitArchive(ctx, g, d, src, repo)
	if err != nil {
		return err
	}
	return store.put(d, src+" at "+d.Commit, bytes.NewReader(data))
}

// gitArchive is the deterministic archive of d's commit in repo (src names
// where it came from, for messages): what the cache stores and d's sha256
// pins.
func gitArchive(ctx context.Context, g gitrun.Runner, d configs.Dependency, src, repo string) ([]byte, error) {
	if d.Tag != "" {
		at, err := g.Output(ctx, repo, "rev-parse", "--verify", "-q", "refs/tags/"+d.Tag+"^{commit}")
		if err == nil && at != d.Commit {
			return nil, fmt.Errorf("%s: tag %s of %s is commit %s, but %s declares %s: the tag moved; check it and update commit and sha256", d.Name, d.Tag, src, at, originOf(d), d.Commit)
		}
	}
	if _, err := g.Output(ctx, repo, "rev-parse", "--verify", "-q", d.Commit+"^{commit}"); err != nil {
		return nil, fmt.Errorf("%s: commit %s is not in %s", d.Name, d.Commit, src)
	}
	prefix := d.Name + "/"
	args := []string{"archive", "--format=tar", "--prefix=" + prefix, d.Commit}
	paths := d.Paths
	for _, m := range d.Layout {
		paths = append(paths, m.From)
	}
	if len(paths) > 0 {
		// Literal pathspecs: a declared path is never git's pattern magic.
		args = append(append(args, "--"), literal(paths)...)
	}
	res, err := g.Run(ctx, repo, args...)
	if err != nil {
		return nil, fmt.Errorf("archiving %s at %s from %s: %w", d.Name, d.Commit, src, err)
	}
	data := res.Stdout
	if len(d.Layout) > 0 {
		if data, err = relayout(data, prefix, d.Layout); err != nil {
			return nil, fmt.Errorf("%s at %s (%s): %w", d.Name, d.Commit, originOf(d), err)
		}
	}
	var gz bytes.Buffer
	if err := deterministicGzip(&gz, data); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// literal marks each path as a literal pathspec (":(literal)x").
func literal(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(literal)" + p
	}
	return out
}

// fetchCommit brings d's commit from a remote into the bare repository
// mirror, unless it is there already.
func fetchCommit(ctx context.Context, g gitrun.Runner, d configs.Dependency, src, mirror string) error {
	if !isDir(mirror) {
		if err := os.MkdirAll(filepath.Dir(mirror), 0o755); err != nil {
			return err
		}
		if _, err := g.Run(ctx, "", "init", "--bare", "-q", "--", mirror); err != nil {
			return fmt.Errorf("creating the git mirror of %s: %w", d.Name, err)
		}
	}
	if _, err := g.Output(ctx, mirror, "rev-parse", "--verify", "-q", d.Commit+"^{commit}"); err == nil {
		return nil
	}
	refspec := d.Commit
	if d.Tag != "" {
		refspec = "+refs/tags/" + d.Tag + ":refs/tags/" + d.Tag
	}
	// One commit is all the archive needs: a shallow fetch keeps big
	// histories (cutlass, cccl) off the disk.
	if _, err := g.Run(ctx, mirror, "fetch", "-q", "--depth=1", "--no-tags", "--", fileURL(src), refspec); err != nil {
		return fmt.Errorf("fetching %s %s from %s: %w", d.Name, orCommit(d), src, err)
	}
	return nil
}

// fileURL makes a local repository path a file:// URL: git honours
// --depth only over a transport, not for a plain path.
func fileURL(src string) string {
	if filepath.IsAbs(src) {
		return "file://" + src
	}
	return src
}

func orCommit(d configs.Dependency) string {
	if d.Tag != "" {
		return d.Tag
	}
	return d.Commit
}

// deterministicGzip compresses data with no name, time or OS in the
// header, at a fixed level.
func deterministicGzip(w io.Writer, data []byte) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	zw.Header = gzip.Header{OS: 255}
	if _, err := zw.Write(data); err != nil {
		return err
	}
	return zw.Close()
}
