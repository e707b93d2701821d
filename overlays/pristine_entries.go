package overlays

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// The pristine source is an outside input like a fork or an archive: its
// entries reach the tree (links are copied as links), the manifest and the
// build's outputs. So it gets the rules the fork and the records get, all
// checked before the tree is written:
//
//   - every path passes safepath.CheckRel: no control character (a newline
//     in a name would add a line of its choosing to cargo.txt), no "..";
//   - a symbolic link stays inside the source: its target is relative and,
//     walked from the link's directory, never climbs above the root nor
//     passes through another link (safepath.EntryProblems). A link inside
//     the tree to a file inside the tree may stay: it is what a checkout
//     holds (`libfoo.so -> libfoo.so.1`, a header shared by two folders),
//     every write mlxbuild makes replaces the link itself rather than
//     writing through it, and it reads nothing outside the tree. One that
//     leaves (`/etc/hostname`, `../../../..`) would make the build read, or
//     a later write reach, what is not the source's;
//   - a submodule is named and refused: mlxbuild fetches no submodule, so
//     its folder would be empty (or hold whatever a checkout left there)
//     and the build would fail far from the cause.
//
// Every bad entry is reported at once, one line each, exit 2.

// sourceProblems are the refusals of one pristine source.
type sourceProblems struct {
	where      string // "source.git <url> at <pin>", "source.dir <dir>"
	list       []string
	submodules map[string]bool // paths already refused as submodules
}

func (sp *sourceProblems) add(line string) { sp.list = append(sp.list, line) }

// submodule adds the refusal of the submodule at path (commit "" when
// unknown).
func (sp *sourceProblems) submodule(path, commit string) {
	if sp.submodules[path] {
		return
	}
	if sp.submodules == nil {
		sp.submodules = map[string]bool{}
	}
	sp.submodules[path] = true
	at := ""
	if commit != "" {
		at = " at " + commit
	}
	shown := path
	if safepath.CheckControl(path) != nil {
		shown = strconv.Quote(path)
	}
	sp.add(fmt.Sprintf("submodule %s%s: mlxbuild does not fetch submodules; use a source whose tree holds the files themselves (a commit without the submodule, or a source.dir with its content copied in)", shown, at))
}

// entries adds the refusals of a listing's paths and links.
func (sp *sourceProblems) entries(list []safepath.Entry) {
	for _, err := range safepath.EntryProblems(list, "source") {
		sp.add(err.Error())
	}
}

func (sp *sourceProblems) err() error {
	if len(sp.list) == 0 {
		return nil
	}
	return fail.Configf("overlays: %s holds %d %s mlxbuild will not copy into a tree (nothing was written); remove or replace them in the source, or pin a commit without them:\n  %s",
		sp.where, len(sp.list), plural(len(sp.list), "entry", "entries"), strings.Join(sp.list, "\n  "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkCommitEntries lists commit's tree in the repository gitDir (the
// mirror, before anything is checked out) and refuses what the pristine
// source may not hold.
func checkCommitEntries(ctx context.Context, gitDir, commit, where string) error {
	res, err := gitRun(ctx, gitDir, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit)
	if err != nil {
		return fmt.Errorf("overlays: listing %s: %w", where, err)
	}
	sp := sourceProblems{where: where}
	var list []safepath.Entry
	var linkIDs []string
	var linkAt []int
	for _, rec := range bytes.Split(res.Stdout, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 || len(p) == 0 {
			return fmt.Errorf("overlays: unexpected git ls-tree line %q listing %s", rec, where)
		}
		path := string(p)
		switch {
		case f[1] == "commit":
			sp.submodule(path, f[2])
			continue
		case f[0] == "120000":
			linkIDs = append(linkIDs, f[2])
			linkAt = append(linkAt, len(list))
			list = append(list, safepath.Entry{Path: path, Symlink: true})
			continue
		}
		list = append(list, safepath.Entry{Path: path})
	}
	if len(linkIDs) > 0 {
		targets, err := blobs(ctx, gitDir, linkIDs)
		if err != nil {
			return fmt.Errorf("overlays: reading the links of %s: %w", where, err)
		}
		for i, at := range linkAt {
			list[at].Link = targets[i]
		}
	}
	sp.entries(list)
	return sp.err()
}

// blobs reads the objects ids through one `git cat-file --batch`.
func blobs(ctx context.Context, gitDir string, ids []string) ([]string, error) {
	res, err := proc.Run(ctx, proc.Cmd{Path: "git", Args: []string{"cat-file", "--batch"}, Dir: gitDir,
		Env: pristineGit.Env(), Stdin: strings.NewReader(strings.Join(ids, "\n") + "\n")})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(ids))
	rest := res.Stdout
	for _, id := range ids {
		header, body, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(header))
		var n int
		if !ok || len(f) != 3 || f[0] != id {
			return nil, fmt.Errorf("unexpected git cat-file output for %s: %q", id, header)
		}
		if _, err := fmt.Sscan(f[2], &n); err != nil || n < 0 || n+1 > len(body) {
			return nil, fmt.Errorf("truncated git cat-file output for %s", id)
		}
		out = append(out, string(body[:n]))
		rest = body[n+1:]
	}
	return out, nil
}

// checkDirEntries walks a source.dir checkout (its own .git aside) and
// refuses what the pristine source may not hold. A folder holding a .git
// of its own is a submodule (or another repository) checked out inside;
// a submodule not checked out is an empty folder, which only the
// checkout's index names: it is asked when the checkout has .gitmodules.
// The user's checkout may change between any two runs, so this runs on
// every one: with directory listings (with their types, no stat), a name
// is checked where it is listed, and only links are gathered for the
// listing-wide check.
func checkDirEntries(ctx context.Context, dir string) error {
	sp := sourceProblems{where: "source.dir " + dir}
	root, err := filepath.EvalSymlinks(dir) // the folder itself may be a link: it is the user's
	if err != nil {
		return fmt.Errorf("overlays: source.dir %s: %w; fix source.dir in mlxbuild.yaml", dir, err)
	}
	var links []safepath.Entry
	queue := []string{""}
	for len(queue) > 0 {
		rel := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		listing, err := os.ReadDir(join(root, rel))
		if err != nil {
			return fmt.Errorf("overlays: reading source.dir %s: %w; check its permissions", join(root, rel), bareErr(err))
		}
		if rel != "" && slices.ContainsFunc(listing, func(e fs.DirEntry) bool { return e.Name() == ".git" }) {
			head, _ := headOf(ctx, join(root, rel))
			sp.submodule(rel, head)
			continue
		}
		for _, e := range listing {
			if rel == "" && e.Name() == ".git" {
				continue
			}
			p := joinRel(rel, e.Name())
			switch {
			case e.Type() == fs.ModeSymlink:
				target, err := os.Readlink(join(root, p))
				if err != nil {
					return fmt.Errorf("overlays: reading the link %s: %w", join(root, p), err)
				}
				links = append(links, safepath.Entry{Path: p, Link: target, Symlink: true})
			case safepath.CheckControl(e.Name()) != nil:
				sp.entries([]safepath.Entry{{Path: p}}) // refused by its name
			case e.IsDir():
				queue = append(queue, p)
			}
		}
	}
	if err := gitlinksOfIndex(ctx, root, &sp); err != nil {
		return err
	}
	sp.entries(links)
	return sp.err()
}

// gitlinksOfIndex adds the submodules a checkout's index names that are not
// checked out (an empty folder on disk). Only a checkout with .gitmodules
// is asked, so a source.dir without submodules costs no git process.
func gitlinksOfIndex(ctx context.Context, dir string, sp *sourceProblems) error {
	if _, err := os.Lstat(filepath.Join(dir, ".gitmodules")); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return nil // not a checkout: the walk saw everything there is
	}
	res, err := gitRun(ctx, dir, "ls-files", "--stage", "-z")
	if err != nil {
		return fmt.Errorf("overlays: listing the index of source.dir %s: %w; check that it is a valid git checkout", dir, err)
	}
	for _, rec := range bytes.Split(res.Stdout, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 || f[0] != "160000" {
			continue
		}
		sp.submodule(string(p), f[1])
	}
	return nil
}

// gitRun runs git for the pristine source (see gitrun) and returns its
// untrimmed output: -z listings end with a NUL, and a name may end with a
// blank.
func gitRun(ctx context.Context, dir string, args ...string) (proc.Result, error) {
	return pristineGit.Run(ctx, dir, args...)
}

var pristineGit = gitrun.Runner{}
