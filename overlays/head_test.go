package overlays

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestPristineAtItsPinStartsNoGit: once the checkout exists, a no-op's
// Pristine reads the detached HEAD itself: it works with no git on PATH.
// Moving the checkout's HEAD to another commit is still refused, and a
// source.dir on a branch (HEAD is a ref) is still asked of git.
func TestPristineAtItsPinStartsNoGit(t *testing.T) {
	repo, first, second := gitRepo(t)
	ctx := context.Background()
	root := t.TempDir()
	dir, err := Pristine(ctx, root, Source{Git: repo, Pin: first})
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", t.TempDir()) // no git here
	if again, err := Pristine(ctx, root, Source{Git: repo, Pin: first}); err != nil || again != dir {
		t.Fatalf("Pristine at its pin without git: %s, %v", again, err)
	}
	t.Setenv("PATH", path)
	if _, err := git(ctx, dir, "switch", "--quiet", "--detach", "--end-of-options", second); err != nil {
		t.Fatal(err)
	}
	if _, err := Pristine(ctx, root, Source{Git: repo, Pin: first}); err == nil || !strings.Contains(err.Error(), "is not at "+first) || !strings.Contains(err.Error(), second) {
		t.Errorf("a checkout moved to %s: %v; want it refused, naming both commits", second, err)
	}
	if _, ok := detachedHead(repo); ok {
		t.Fatalf("the test repository's HEAD should be a branch")
	}
	if got, err := Pristine(ctx, "", Source{Dir: repo, Pin: second}); err != nil || got != repo {
		t.Errorf("source.dir on a branch at its pin: %s, %v", got, err)
	}
	if _, err := Pristine(ctx, "", Source{Dir: repo, Pin: first}); err == nil || !strings.Contains(err.Error(), "is at "+second) {
		t.Errorf("source.dir on a branch past its pin: %v; want it refused", err)
	}
}

func TestDetachedHeadReadsOnlyACommitID(t *testing.T) {
	id := strings.Repeat("0123456789abcdef", 3)[:40]
	for content, want := range map[string]bool{
		id + "\n":                  true,
		strings.Repeat("ab", 32):   true, // SHA-256
		"ref: refs/heads/main\n":   false,
		strings.ToUpper(id) + "\n": false,
		id[:39] + "\n":             false,
		id + "\n" + id + "\n":      false,
		"":                         false,
	} {
		d := t.TempDir()
		writeFiles(t, d, files{".git/HEAD": content})
		if got, ok := detachedHead(d); ok != want || ok && got != strings.TrimSpace(content) {
			t.Errorf("HEAD %q: %q, %v; want ok %v", content, got, ok, want)
		}
	}
	if _, ok := detachedHead(t.TempDir()); ok {
		t.Error("a directory without .git has a HEAD")
	}
}
