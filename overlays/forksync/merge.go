package forksync

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// merger runs three-way merges of file contents with git merge-file, in a
// scratch directory of its own.
type merger struct {
	dir string
	n   int
}

// Labels name the three sides in conflict markers.
type labels struct{ ours, base, theirs string }

// merge3 merges the change base->theirs into ours. It returns the result
// (with diff3-style conflict markers where the two changes overlap) and
// whether it conflicted. Identical changes on both sides are not a
// conflict. Files with a NUL byte are binary: they merge only when one side
// left them as they were.
func (m *merger) merge3(ctx context.Context, ours, base, theirs []byte, l labels) ([]byte, bool, error) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(theirs, base):
		return ours, false, nil
	case bytes.Equal(ours, base):
		return theirs, false, nil
	}
	if isBinary(ours) || isBinary(base) || isBinary(theirs) {
		return ours, true, nil
	}
	m.n++
	paths := [3]string{}
	for i, data := range [][]byte{ours, base, theirs} {
		paths[i] = filepath.Join(m.dir, fmt.Sprintf("%d.%d", m.n, i))
		if err := os.WriteFile(paths[i], data, 0o600); err != nil {
			return nil, false, fmt.Errorf("forksync: writing a merge input: %w", err)
		}
	}
	defer func() {
		for _, p := range paths {
			os.Remove(p)
		}
	}()
	// Run in the scratch folder: merge-file needs no repository, but git
	// still reads the one around its working directory, and a broken one
	// there (a worktree's .git naming a folder this root cannot see)
	// is fatal to it.
	res, err := proc.Run(ctx, proc.Cmd{Path: "git", Env: gitr.Env(), Dir: m.dir, Args: []string{
		"merge-file", "-p", "--diff3",
		"-L", l.ours, "-L", l.base, "-L", l.theirs,
		"--", paths[0], paths[1], paths[2]}})
	if err == nil {
		return res.Stdout, false, nil
	}
	// git merge-file exits with the number of conflicts (capped at 127),
	// and with a negative status (255 here) on an error of its own.
	var exit *proc.ExitError
	if errors.As(err, &exit) && res.ExitCode > 0 && res.ExitCode < 128 {
		return res.Stdout, true, nil
	}
	return nil, false, fmt.Errorf("forksync: git merge-file failed: %w", err)
}

func isBinary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }
