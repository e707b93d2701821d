package overlays

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// headOf is the commit checked out in dir. A detached HEAD, as in every
// checkout Pristine makes, is a file holding the commit id itself: reading
// it spares each no-op a `git rev-parse HEAD` (a process, several ms, most
// of what a no-op apply costs over its file walk). Anything else (a branch,
// a worktree's .git file, an unreadable HEAD) is asked of git.
func headOf(ctx context.Context, dir string) (string, error) {
	if head, ok := detachedHead(dir); ok {
		return head, nil
	}
	return git(ctx, dir, "rev-parse", "HEAD")
}

// detachedHead reads dir/.git/HEAD when it is a full, lower-case commit id
// (SHA-1 or SHA-256), which is exactly git's on-disk form of a detached
// HEAD; ok is false for any other content.
func detachedHead(dir string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, ".git", "HEAD"))
	if err != nil {
		return "", false
	}
	head := strings.TrimSuffix(string(data), "\n")
	if (len(head) != 40 && len(head) != 64) || !isLowerHex(head) {
		return "", false
	}
	return head, true
}
