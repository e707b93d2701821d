package forksync

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Blob is one file of a commit or of the overlay.
type Blob struct {
	Data []byte
	Exec bool // the executable bit
}

// Files maps slash-separated paths to their contents.
type Files map[string]Blob

// readTree reads the files under paths (directories or files) at commit.
// Paths that do not exist at that commit are simply absent.
func (r *Repo) readTree(ctx context.Context, commit string, paths []string) (Files, error) {
	out := Files{}
	if len(paths) == 0 {
		return out, nil
	}
	args := append([]string{"--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit, "--"}, paths...)
	res, err := gitRaw(ctx, r.Dir, args...)
	if err != nil {
		return nil, fmt.Errorf("forksync: listing %s at %s in %s: %w", strings.Join(paths, ", "), short(commit), r.URL, err)
	}
	type entry struct {
		path, id string
		exec     bool
	}
	var entries []entry
	for _, rec := range bytes.Split(res.Stdout, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
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
			return nil, fmt.Errorf("forksync: %s is a symbolic link at %s in %s; overlays hold regular files only: replace the link with the file in the fork, or leave the directory out of fork.dirs", path, short(commit), r.URL)
		}
		entries = append(entries, entry{string(path), f[2], f[0] == "100755"})
	}
	if len(entries) == 0 {
		return out, nil
	}
	var in strings.Builder
	for _, e := range entries {
		in.WriteString(e.id + "\n")
	}
	res, err = proc.Run(ctx, proc.Cmd{Path: "git", Args: []string{"cat-file", "--batch"}, Dir: r.Dir, Env: gitr.Env(), Stdin: strings.NewReader(in.String())})
	if err != nil {
		return nil, fmt.Errorf("forksync: reading files at %s in %s: %w", short(commit), r.URL, err)
	}
	rest := res.Stdout
	for _, e := range entries {
		header, body, ok := bytes.Cut(rest, []byte{'\n'})
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 || f[0] != e.id {
			return nil, fmt.Errorf("forksync: unexpected git cat-file output for %s: %q", e.path, header)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n+1 > len(body) {
			return nil, fmt.Errorf("forksync: truncated git cat-file output for %s", e.path)
		}
		out[e.path] = Blob{Data: body[:n:n], Exec: e.exec}
		rest = body[n+1:]
	}
	return out, nil
}

// short abbreviates a commit id for messages.
func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
