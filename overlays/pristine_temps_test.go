package overlays

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestPristineConvergesWhileAKilledRunsGitStillWrites: a run killed during
// the clone leaves its temporary directory, and the git it started may live
// on and keep writing there. The next run must neither trip over that
// directory nor wait for it, and must remove what it can of it.
func TestPristineConvergesWhileAKilledRunsGitStillWrites(t *testing.T) {
	repo, first, _ := gitRepo(t)
	root := t.TempDir()
	src := filepath.Join(root, "src")
	mirror := MirrorDir(root, repo)
	// What killed runs left: the fixed temporary names of earlier versions
	// and unique ones.
	leftovers := []string{
		filepath.Join(src, first+".tmp"), filepath.Join(src, first+".tmp-killed1"),
		mirror + ".tmp", mirror + ".tmp-killed2",
	}
	for _, d := range leftovers {
		writeFiles(t, d, files{"HEAD": "ref: refs/heads/main\n", "objects/pack/x.pack": "half a pack"})
	}
	// The orphaned git of the killed run keeps writing into the checkout's
	// temporary directories while the next run works.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, d := range leftovers[:2] {
				os.MkdirAll(filepath.Join(d, ".git"), 0o755)
				os.WriteFile(filepath.Join(d, ".git", "index"), []byte("orphan"), 0o644)
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	dir, err := Pristine(context.Background(), root, Source{Git: repo, Pin: first})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("the run after the kill: %v", err)
	}
	if head, err := git(context.Background(), dir, "rev-parse", "HEAD"); err != nil || head != first {
		t.Fatalf("checkout at %q (%v), want %s", head, err, first)
	}
	// Once the orphan is gone, the next run that makes the checkout removes
	// what it left.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := Pristine(context.Background(), root, Source{Git: repo, Pin: first}); err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{filepath.Join(src, "*.tmp*"), filepath.Join(src, "git", "*.tmp*")} {
		if left, _ := filepath.Glob(pat); len(left) > 0 {
			t.Errorf("temporary directories are left over: %q", left)
		}
	}
}
