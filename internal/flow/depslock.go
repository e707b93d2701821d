package flow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/deps"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// asked is one dependency the trees ask for, and the first backend whose
// tree asked.
type asked struct {
	deps.Request
	backend string
}

// DepsLock declares, pins and fetches what the named backends' trees ask
// FetchContent for (see captureRequests): each request the spec and the
// lock file do not already declare as asked is resolved (its tag's commit
// from the mirror with git, or from the network; the sha256 of the
// archive the cache stores), written to the project's lock file
// (mlxbuild.lock beside the project file) and put in the verified cache. What moved since
// the last lock or the spec is printed as name: old -> new, and only those
// lines of the lock file change. Nothing is written or cached unless every
// request resolved.
func DepsLock(ctx context.Context, o Options, backendList, mirror string) error {
	o = o.withDefaults()
	pr := o.printer()
	cfg, err := configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return err
	}
	names, err := fetchBackends(cfg, backendList)
	if err != nil {
		return err
	}
	if mirror, err = mirrorDir(cfg, mirror); err != nil {
		return err
	}
	lockPath := cfg.LockPath()
	lock, err := configs.ReadLock(lockPath)
	if err != nil {
		return err
	}
	declared := map[string][]configs.Dependency{}
	var ran []string
	for _, name := range names {
		spec, err := cfg.DeclaredSpec(name)
		if err != nil {
			return err
		}
		if !slices.Contains(spec.Platforms, o.GOOS) {
			continue
		}
		ran = append(ran, name)
		for _, d := range spec.ActiveDependencies(o.GOOS) {
			declared[strings.ToLower(d.Name)] = append(declared[strings.ToLower(d.Name)], d)
		}
	}
	// Before any configure: the lock file is one for every backend.
	if err := conflictingDeclarations(declared); err != nil {
		return err
	}
	var order []string
	wants := map[string]asked{}
	for _, name := range ran {
		pr.Step("%s: configuring the tree to see what FetchContent asks for", name)
		reqs, err := captureRequests(ctx, o, name)
		if err != nil {
			return err
		}
		for _, r := range reqs {
			key := strings.ToLower(r.Name)
			if prev, ok := wants[key]; ok {
				if prev.Source() != r.Source() {
					return fail.Configf("%s: the %s tree asks for %s as %s, but the %s tree asks for %s (%s): one lock file cannot pin both; make the trees agree", r.At, name, r.Name, r.Source(), prev.backend, prev.Source(), prev.At)
				}
				continue
			}
			wants[key] = asked{r, name}
			order = append(order, key)
		}
	}
	byName := map[string]configs.LockEntry{}
	for _, e := range lock {
		byName[strings.ToLower(e.Name)] = e
	}
	var locked []deps.Locked
	var errs []error
	replace := map[int]string{} // lock file line -> new entry
	var added []string
	for _, key := range order {
		r := wants[key].Request
		var like *configs.Dependency
		if list := declared[key]; len(list) > 0 {
			like = &list[0]
		}
		e, inLock := byName[key]
		switch {
		case inLock && lockMatches(e, r):
			pr.Info("%-14s %s (locked at %s)", r.Name, lockLabel(e.Tag, e.Commit, e.URL), e.Pos)
			continue
		case !inLock && like != nil && like.SHA256 != "" && declMatches(*like, r):
			pr.Info("%-14s %s (declared at %s)", r.Name, lockLabel(like.Tag, like.Commit, like.URL), like.Origin)
			continue
		case !inLock && like != nil && like.SHA256 != "" && standIn(*like, r):
			// A git commit for the release archive the tree asks for
			// (json.tar.xz, CCCL's zip laid out): the spec's deliberate
			// stand-in, while the URL names the same tag.
			pr.Info("%-14s %s laid out as %s (declared at %s)", r.Name, lockLabel(like.Tag, like.Commit, ""), lockLabel("", "", r.URL), like.Origin)
			continue
		}
		if !inLock && like != nil && sourceOf(like.Git, like.URL) != "" && !sameRepo(sourceOf(like.Git, like.URL), sourceOf(r.Git, r.URL)) {
			pr.Warn("%s: the spec declares %s (%s), but the tree asks for %s (%s): locking what the tree asks for", r.Name, sourceOf(like.Git, like.URL), like.Origin, sourceOf(r.Git, r.URL), r.At)
		}
		l, err := deps.LockRequest(ctx, r, like, deps.LockSource{Store: deps.StoreAt(cfg.CacheRoot.Value), Mirror: mirror})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		locked = append(locked, l)
		entry := configs.LockEntry{Name: r.Name, URL: l.Dep.URL, Git: l.Dep.Git, Tag: l.Dep.Tag, Commit: l.Dep.Commit, SHA256: l.Dep.SHA256}
		now := lockLabel(l.Dep.Tag, l.Dep.Commit, l.Dep.URL)
		switch {
		case inLock:
			replace[e.Line] = entry.Format()
			fmt.Fprintf(o.Stdout, "%s: %s -> %s\n", r.Name, lockLabel(e.Tag, e.Commit, e.URL), now)
		case like != nil:
			added = append(added, entry.Format())
			fmt.Fprintf(o.Stdout, "%s: %s -> %s\n", r.Name, lockLabel(like.Tag, like.Commit, like.URL), now)
		default:
			added = append(added, entry.Format())
			fmt.Fprintf(o.Stdout, "%s: new, %s\n", r.Name, now)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("deps:lock: nothing locked or cached:\n%w", errors.Join(errs...))
	}
	reportUnused(o, cfg, lock, declared, wants, ran)
	if len(replace)+len(added) > 0 {
		if err := writeLock(lockPath, replace, added); err != nil {
			return err
		}
		pr.Done("%s: %d locked", lockPath, len(replace)+len(added))
	}
	// Fetch what the trees ask for, as the lock now declares it.
	cfg, err = configs.LoadConfig(o.Dir, o.Env)
	if err != nil {
		return err
	}
	var list []configs.Dependency
	for _, name := range ran {
		spec, err := cfg.Spec(name)
		if err != nil {
			return err
		}
		for _, d := range spec.ActiveDependencies(o.GOOS) {
			if _, ok := wants[strings.ToLower(d.Name)]; ok {
				list = append(list, d)
			}
		}
	}
	return fetchList(ctx, o, cfg, ran, list, mirror, locked)
}

// conflictingDeclarations refuses a dependency that two backends' specs
// declare with different sources: the lock file is one for all.
func conflictingDeclarations(declared map[string][]configs.Dependency) error {
	var ps []string
	for _, key := range slices.Sorted(maps.Keys(declared)) {
		list := declared[key]
		for _, d := range list[min(1, len(list)):] {
			a := list[0]
			if a.URL != d.URL || a.Git != d.Git || a.Tag != d.Tag || a.Commit != d.Commit || a.SHA256 != d.SHA256 {
				ps = append(ps, fmt.Sprintf("%s: %s is declared as %s, but %s declares it as %s: declare it the same way in both specs (or in one)", d.Origin, d.Name, d.Source(), a.Origin, a.Source()))
			}
		}
	}
	if len(ps) > 0 {
		return fail.Configf("%s", strings.Join(ps, "\n"))
	}
	return nil
}

// reportUnused names the lock file's entries, and the project's own
// declarations, that no tree of this run asks for any more.
func reportUnused(o Options, cfg *configs.Config, lock []configs.LockEntry, declared map[string][]configs.Dependency, wants map[string]asked, ran []string) {
	pr := o.printer()
	trees := strings.Join(ran, ", ")
	for _, e := range lock {
		if _, ok := wants[strings.ToLower(e.Name)]; !ok {
			pr.Warn("%s: %s is unused: the %s tree no longer asks for it; delete its line if no other backend does", e.Pos, e.Name, trees)
		}
	}
	for key, list := range declared {
		if _, ok := wants[key]; ok {
			continue
		}
		for _, d := range list {
			if strings.HasPrefix(d.Origin, cfg.Project.Dir+string(os.PathSeparator)) && d.Package == nil {
				pr.Warn("%s: %s is unused: the %s tree no longer asks for it", d.Origin, d.Name, trees)
			}
		}
	}
}

// writeLock replaces the moved entries' lines and appends the new ones,
// leaving every other byte of the file as it was; the write is atomic.
func writeLock(path string, replace map[int]string, added []string) error {
	text := configs.NewLockFile()
	if data, err := os.ReadFile(path); err == nil {
		text = string(data)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for n, entry := range replace {
		lines[n-1] = entry
	}
	lines = append(lines, added...)
	return atomicfile.Write(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// lockMatches reports whether a lock entry pins what the tree asks for.
func lockMatches(e configs.LockEntry, r deps.Request) bool {
	return sourceMatches(e.Git, e.URL, e.Tag, e.Commit, r)
}

func declMatches(d configs.Dependency, r deps.Request) bool {
	return sourceMatches(d.Git, d.URL, d.Tag, d.Commit, r)
}

func sourceMatches(git, url, tag, commit string, r deps.Request) bool {
	if r.URL != "" {
		return url == r.URL
	}
	if git == "" || !sameRepo(git, r.Git) {
		return false
	}
	return tag == r.Tag || tag == "" && r.Tag != "" && strings.HasPrefix(commit, r.Tag)
}

// standIn reports whether a git declaration stands in for the release
// archive the tree asks for: the URL names the declaration's tag, so a
// moved URL (a new version) is a move, not a stand-in.
func standIn(d configs.Dependency, r deps.Request) bool {
	return r.URL != "" && d.Git != "" && d.Tag != "" && strings.Contains(r.URL, d.Tag)
}

// sameRepo compares repository addresses as a forge does: a trailing .git
// or slash does not matter, nor the case of the host and path.
func sameRepo(a, b string) bool {
	norm := func(s string) string {
		return strings.ToLower(strings.TrimSuffix(strings.TrimRight(s, "/"), ".git"))
	}
	return norm(a) == norm(b)
}

func sourceOf(git, url string) string {
	if url != "" {
		return url
	}
	return git
}

// lockLabel is tag/commit (12 hex), or the URL's file name.
func lockLabel(tag, commit, url string) string {
	if url != "" {
		return url[strings.LastIndex(url, "/")+1:]
	}
	c := commit
	if len(c) > 12 {
		c = c[:12]
	}
	if tag == "" {
		return c
	}
	return tag + "/" + c
}
