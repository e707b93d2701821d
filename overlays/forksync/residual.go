package forksync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// reconstruct is a core file as "MLX pin + the fork's own change to it": the
// three-way merge of the fork's file (theirs) onto the pin's (ours), based on
// the fork's merge base with MLX. Conflict markers stay in, as the
// reference's tool keeps them: the overlay resolved them, and its residual
// shows how. A file the fork does not have is the pin's; one neither has is
// empty. conflicted says whether the merge left markers.
func (m *merger) reconstruct(ctx context.Context, pin, base, fork []byte, inFork bool, path string) ([]byte, bool, error) {
	if !inFork {
		return pin, false, nil
	}
	return m.merge3(ctx, pin, base, fork, labels{"pin:" + path, "fork-merge-base", "fork"})
}

// unifiedDiff is the patch from old to new of path, in the form
// CORE_RESIDUAL.diff holds (`--- a/<path>`, `+++ b/<path>`, hunks with three
// lines of context), or "" when they are equal. git diff --no-index writes
// it, from two files laid out as a/<path> and b/<path> in a scratch
// directory, so the headers name the path and nothing else.
func (m *merger) unifiedDiff(ctx context.Context, old, new []byte, path string) (string, error) {
	if bytes.Equal(old, new) {
		return "", nil
	}
	m.n++
	dir := filepath.Join(m.dir, fmt.Sprintf("diff%d", m.n))
	defer os.RemoveAll(dir)
	for side, data := range map[string][]byte{"a": old, "b": new} {
		p, err := safepath.Join(filepath.Join(dir, side), path)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return "", fmt.Errorf("forksync: writing a diff input: %w", err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return "", fmt.Errorf("forksync: writing a diff input: %w", err)
		}
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: "git", Dir: dir, Env: gitr.Env(), Args: []string{
		"diff", "--no-index", "--no-color", "--no-ext-diff", "--no-prefix", "-U3", "--", "a/" + path, "b/" + path}})
	// git diff --no-index exits 1 when the files differ.
	var exit *proc.ExitError
	if err != nil && !(errors.As(err, &exit) && res.ExitCode == 1) {
		return "", fmt.Errorf("forksync: git diff of %s failed: %w", path, err)
	}
	out := string(res.Stdout)
	if i := strings.Index(out, "\n--- "); i >= 0 {
		out = out[i+1:] // drop the `diff --git` and `index` lines
	}
	return out, nil
}

// applies reports whether patch, applied to old, gives exactly new. The
// recorded residual is compared this way rather than as text, so a residual
// written by another diff program (the reference's tool uses Python's
// difflib, whose hunks can split differently) still counts when it says the
// same thing.
func (m *merger) applies(ctx context.Context, patch string, old, new []byte, path string) bool {
	m.n++
	dir := filepath.Join(m.dir, fmt.Sprintf("apply%d", m.n))
	defer os.RemoveAll(dir)
	p, err := safepath.Join(dir, path)
	if err != nil {
		return false
	}
	if os.MkdirAll(filepath.Dir(p), 0o700) != nil || os.WriteFile(p, old, 0o600) != nil {
		return false
	}
	patchFile := filepath.Join(m.dir, fmt.Sprintf("apply%d.patch", m.n))
	defer os.Remove(patchFile)
	if os.WriteFile(patchFile, []byte(patch), 0o600) != nil {
		return false
	}
	if _, err := proc.Run(ctx, proc.Cmd{Path: "git", Dir: dir, Env: gitr.Env(), Args: []string{
		"apply", "-p1", "--whitespace=nowarn", "--", patchFile}}); err != nil {
		return false
	}
	got, err := os.ReadFile(p)
	return err == nil && bytes.Equal(got, new)
}

// patchStats counts the added and removed lines of a patch.
func patchStats(patch string) (plus, minus int) {
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "+"):
			plus++
		case strings.HasPrefix(l, "-"):
			minus++
		}
	}
	return plus, minus
}
