package forksync

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// blob is one file of a commit or of the overlay.
type blob struct {
	data []byte
	exec bool // the executable bit
}

// files maps slash-separated paths to their contents.
type files map[string]blob

// readTree reads the files under paths (directories or files) at commit.
// Paths that do not exist at that commit are simply absent.
func (r *repo) readTree(ctx context.Context, commit string, paths []string) (files, error) {
	out := files{}
	if len(paths) == 0 {
		return out, nil
	}
	args := append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit, "--"}, paths...)
	res, err := gitRaw(ctx, r.dir, args...)
	if err != nil {
		return nil, fmt.Errorf("forksync: listing %s at %s in %s: %w", strings.Join(paths, ", "), short(commit), r.url, err)
	}
	entries, err := parseLsTree(res.Stdout, commit, r.url)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return out, nil
	}
	var in strings.Builder
	for _, e := range entries {
		in.WriteString(e.id + "\n")
	}
	res, err = proc.Run(ctx, proc.Cmd{Path: "git", Args: []string{"cat-file", "--batch"}, Dir: r.dir, Env: gitr.Env(), Stdin: strings.NewReader(in.String())})
	if err != nil {
		return nil, fmt.Errorf("forksync: reading files at %s in %s: %w", short(commit), r.url, err)
	}
	if err := parseCatFileBatch(res.Stdout, entries, out); err != nil {
		return nil, err
	}
	return out, nil
}

// treeEntry is one file of `git ls-tree -r -z`.
type treeEntry struct {
	path, id string
	exec     bool
}

// parseLsTree reads `git ls-tree -r -z` output ("<mode> <type> <id>\t<path>"
// records ended by NUL): blobs become entries, submodules are skipped, and
// symbolic links or other objects are errors (overlays hold regular files).
func parseLsTree(out []byte, commit, url string) ([]treeEntry, error) {
	var entries []treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 || len(path) == 0 {
			return nil, fmt.Errorf("forksync: unexpected git ls-tree line %q", rec)
		}
		switch f[1] {
		case "blob":
		case "commit":
			continue // a submodule: not part of an overlay
		default:
			return nil, fmt.Errorf("forksync: unexpected object %s at %s", f[1], path)
		}
		if f[0] == "120000" {
			return nil, fmt.Errorf("forksync: %s is a symbolic link at %s in %s; overlays hold regular files only: replace the link with the file in the fork, or leave the directory out of fork.dirs", path, short(commit), url)
		}
		// A tree can hold ".." or an absolute-looking name (git mktree
		// checks nothing): every path is confined before any is written.
		if err := safepath.CheckRel(string(path)); err != nil {
			return nil, fmt.Errorf("forksync: %s at %s: %w; the commit's tree is not one an overlay can take", url, short(commit), err)
		}
		entries = append(entries, treeEntry{string(path), f[2], f[0] == "100755"})
	}
	return entries, nil
}

// parseCatFileBatch reads `git cat-file --batch` output for entries, in
// their order ("<id> <type> <size>\n<content>\n" each), into out.
func parseCatFileBatch(stdout []byte, entries []treeEntry, out files) error {
	rest := stdout
	for _, e := range entries {
		header, body, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 || f[0] != e.id {
			return fmt.Errorf("forksync: unexpected git cat-file output for %s: %q", e.path, header)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(body) {
			return fmt.Errorf("forksync: truncated git cat-file output for %s", e.path)
		}
		out[e.path] = blob{data: body[:n:n], exec: e.exec}
		rest = body[n+1:]
	}
	return nil
}

// short abbreviates a commit id for messages.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
