package forksync

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// dotDotCommit commits, on the fork's branch, a tree whose
// mlx/backend/rocm holds a tree named ".." nested depth deep with a file
// "escaped" at its bottom: git stores such trees (git mktree --missing
// checks nothing), and a checkout would refuse them, but ls-tree lists
// mlx/backend/rocm/../../../escaped as it is.
func dotDotCommit(t *testing.T, r *gitRepo, depth int) string {
	t.Helper()
	blob := r.gitIn("escaped\n", "hash-object", "-w", "--stdin")
	entry := "100644 blob " + blob + "\tescaped\n"
	for i := 0; i < depth; i++ {
		entry = "040000 tree " + r.gitIn(entry, "mktree", "--missing") + "\t..\n"
	}
	return rocmEntryCommit(t, r, strings.TrimSuffix(entry, "\n")+"\x00")
}

// rocmEntryCommit commits, on the fork's branch, the fork's tree with one
// more entry in mlx/backend/rocm: entry is a `git mktree -z` record, so
// its name may hold any byte but NUL.
func rocmEntryCommit(t *testing.T, r *gitRepo, entry string) string {
	t.Helper()
	// Keep the rest of the fork's mlx/backend/rocm beside the entry.
	head := r.git("rev-parse", "HEAD")
	rocmTree := r.git("rev-parse", head+":"+rocm)
	tree := r.gitIn(r.git("ls-tree", "-z", "--", rocmTree)+entry, "mktree", "-z", "--missing")
	for _, dir := range []string{"mlx/backend", "mlx", ""} {
		parent := r.git("rev-parse", head+":"+dir)
		var b strings.Builder
		for _, l := range strings.Split(r.git("ls-tree", "--", parent), "\n") {
			name := l[strings.IndexByte(l, '\t')+1:]
			child := rocm[len(dir):]
			child = strings.TrimPrefix(child, "/")
			if i := strings.IndexByte(child, '/'); i >= 0 {
				child = child[:i]
			}
			if name == child {
				l = "040000 tree " + tree + "\t" + name
			}
			b.WriteString(l + "\n")
		}
		tree = r.gitIn(b.String(), "mktree", "--missing")
	}
	c := r.git("commit-tree", tree, "-p", head, "-m", "a tree with an entry no overlay can take")
	r.git("update-ref", "refs/heads/rocm-support", c)
	return c
}

// gitIn runs git with stdin.
func (r *gitRepo) gitIn(stdin string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = testEnv(r.home)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestSyncRefusesAForkTreeWithDotDotEntries: a fork commit whose tree
// holds ".." nested three deep (the overlay's root) and six deep (two
// directories above the project) under mlx/backend/rocm is refused with
// exit 2, naming the entry, and nothing is written: not the overlay, not
// the project, not the directories above it.
func TestSyncRefusesAForkTreeWithDotDotEntries(t *testing.T) {
	for _, depth := range []int{3, 6} {
		t.Run(strings.Repeat("../", depth), func(t *testing.T) {
			f := newSyncFixture(t)
			c := dotDotCommit(t, f.fork, depth)
			entry := rocm + "/" + strings.Repeat("../", depth) + "escaped"
			if got := f.fork.git("ls-tree", "-r", "--name-only", "--full-tree", c, "--", rocm); !strings.Contains(got, entry) {
				t.Fatalf("the fixture's tree does not list %s:\n%s", entry, got)
			}
			// Everything from two directories above the project down,
			// but the cache (mlxbuild's own: a lock and a mirror).
			above := filepath.Dir(f.root)
			before := snapExcept(t, above, f.cache)
			res, err := Sync(context.Background(), withCommit(f.forkOpts, c))
			if err == nil {
				t.Fatalf("the sync was accepted: %+v", res)
			}
			if code := fail.ExitCode(err); code != 2 {
				t.Errorf("exit code %d, want 2: %v", code, err)
			}
			if want := `refusing unsafe path "` + entry + `": it has a .. component`; !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q:\n%v", want, err)
			}
			sameSnap(t, snapExcept(t, above, f.cache), before)
		})
	}
}

// snapExcept is snap of dir without the subtree skip.
func snapExcept(t *testing.T, dir, skip string) snapshot {
	t.Helper()
	s := snap(t, dir)
	rel, _ := filepath.Rel(dir, skip)
	for k := range s {
		if k == rel+"/" || strings.HasPrefix(k, rel+string(filepath.Separator)) {
			delete(s, k)
		}
	}
	return s
}

// TestSyncRefusesAForkAheadOfThePin: a fork commit that merged MLX commits
// the pin does not contain is refused with exit 2, naming the fork commit,
// the pin and the merge base, and saying to retarget first; the overlay
// stays as it was. The same holds when the pin comes from UPSTREAM's
// retargeted_to_mlx_pin rather than source.pin.
func TestSyncRefusesAForkAheadOfThePin(t *testing.T) {
	for _, fromProject := range []bool{true, false} {
		f := newSyncFixture(t)
		b1, c3 := f.forkMergesUpstream()
		o := withCommit(f.forkOpts, c3)
		if fromProject {
			o.Pin = f.b0
		}
		res, err := Sync(context.Background(), o)
		if err == nil {
			t.Fatalf("a fork ahead of the pin was accepted: %+v", res)
		}
		if code := fail.ExitCode(err); code != 2 {
			t.Errorf("exit code %d, want 2: %v", code, err)
		}
		msg := fail.Message(err)
		for _, w := range []string{"fork " + short(c3) + " is ahead of the pin " + short(f.b0), "contains upstream MLX commits the pin does not (merge base " + b1 + ")", "overlay:retarget " + b1} {
			if !strings.Contains(msg, w) {
				t.Errorf("the message lacks %q:\n%s", w, msg)
			}
		}
		sameSnap(t, snap(t, f.overlay), f.before)
	}
}

// TestSyncRefusesAForkTreeWithANewlineInAName: a fork file whose name
// holds a newline (git stores it; line-based records cannot list it) is
// refused with exit 2 naming it, and the overlay is left as it was.
func TestSyncRefusesAForkTreeWithANewlineInAName(t *testing.T) {
	f := newSyncFixture(t)
	blob := f.fork.gitIn("x\n", "hash-object", "-w", "--stdin")
	c := rocmEntryCommit(t, f.fork, "100644 blob "+blob+"\tnew\nline.h\x00")
	_, err := Sync(context.Background(), withCommit(f.forkOpts, c))
	if want := `refusing unsafe path "` + rocm + `/new\nline.h": it holds a newline`; err == nil || !strings.Contains(err.Error(), want) || fail.ExitCode(err) != 2 {
		t.Fatalf("Sync = %v, want exit 2 with %q", err, want)
	}
	sameSnap(t, snap(t, f.overlay), f.before)
}
