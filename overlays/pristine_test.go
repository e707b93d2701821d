package overlays

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo makes a repository with two commits and returns its path and the
// commit ids. It uses its own identity and no GIT_* variables of the caller.
func gitRepo(t *testing.T) (dir, first, second string) {
	t.Helper()
	dir, run := newRepo(t, files{"CMakeLists.txt": "v1\n", "mlx/array.cpp": "// v1\n"})
	run("add", ".")
	run("commit", "--quiet", "-m", "one")
	first = run("rev-parse", "HEAD")
	writeFiles(t, dir, files{"mlx/array.cpp": "// v2\n"})
	run("commit", "--quiet", "-am", "two")
	second = run("rev-parse", "HEAD")
	return dir, first, second
}

// newRepo makes a repository holding fs, nothing committed, and returns
// its path and git run in it (failing the test on an error).
func newRepo(t *testing.T, fs files) (string, func(...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("git is not installed")
		}
		t.Fatal("git is not installed")
	}
	dir := filepath.Join(t.TempDir(), "mlx-upstream")
	run := func(args ...string) string {
		t.Helper()
		out, err := git(context.Background(), dir, args...)
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return out
	}
	writeFiles(t, dir, fs)
	run("init", "--quiet", "-b", "main")
	return dir, run
}

func TestPristineClonesOnceAndChecksOutEachPin(t *testing.T) {
	repo, first, second := gitRepo(t)
	t.Setenv("GIT_DIR", "/nonexistent") // a hook's leftover must not matter
	t.Setenv("GIT_WORK_TREE", "/nonexistent")
	root := t.TempDir()
	ctx := context.Background()
	dir, err := Pristine(ctx, root, Source{Git: repo, Pin: first})
	if err != nil {
		t.Fatal(err)
	}
	got := readFiles(t, dir)
	delete(got, ".git")
	for p := range got {
		if strings.HasPrefix(p, ".git/") {
			delete(got, p)
		}
	}
	sameFiles(t, got, files{"CMakeLists.txt": "v1\n", "mlx/array.cpp": "// v1\n"})
	if head, _ := git(ctx, dir, "rev-parse", "HEAD"); head != first {
		t.Errorf("HEAD %s, want %s", head, first)
	}
	// The second pin is in the mirror already: no fetch needed, so it works
	// with the origin gone too.
	moved := repo + ".moved"
	os.Rename(repo, moved)
	dir2, err := Pristine(ctx, root, Source{Git: repo, Pin: second})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir2, "mlx/array.cpp")); string(b) != "// v2\n" {
		t.Errorf("second pin has %q", b)
	}
	if dir2 == dir {
		t.Error("two pins share one checkout")
	}
	// Asking again is a no-op.
	if again, err := Pristine(ctx, root, Source{Git: repo, Pin: first}); err != nil || again != dir {
		t.Errorf("again: %s, %v", again, err)
	}
	// A commit made after the clone is fetched (file:// URL this time).
	os.Rename(moved, repo)
	writeFiles(t, repo, files{"mlx/array.cpp": "// v3\n"})
	if _, err := git(ctx, repo, "commit", "--quiet", "-am", "three"); err != nil {
		t.Fatal(err)
	}
	third, _ := git(ctx, repo, "rev-parse", "HEAD")
	if _, err := Pristine(ctx, root, Source{Git: "file://" + repo, Pin: third}); err != nil {
		t.Fatal(err)
	}
	dir3, err := Pristine(ctx, root, Source{Git: repo, Pin: third})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir3, "mlx/array.cpp")); string(b) != "// v3\n" {
		t.Errorf("third pin has %q", b)
	}
}

func TestPristineErrors(t *testing.T) {
	repo, first, _ := gitRepo(t)
	ctx := context.Background()
	root := t.TempDir()
	cases := []struct {
		name string
		src  Source
		want string
	}{
		{"short pin", Source{Git: repo, Pin: first[:12]}, "source.pin \"" + first[:12] + "\" is not a full commit id"},
		{"branch pin", Source{Git: repo, Pin: "main"}, "is not a full commit id"},
		{"unknown pin", Source{Git: repo, Pin: strings.Repeat("ab", 20)}, "commit abababababababababababababababababababab (source.pin) is not in " + repo},
		{"unreachable", Source{Git: filepath.Join(root, "no-such-repo"), Pin: first}, "cloning MLX from " + filepath.Join(root, "no-such-repo") + " failed"},
		{"unreachable url", Source{Git: "file:///nonexistent/mlx", Pin: first}, "check source.git in mlxbuild.yaml and that the repository is reachable"},
		{"no source", Source{Pin: first}, "set source.git"},
		{"dir missing", Source{Dir: filepath.Join(root, "nope")}, "is not a directory; fix source.dir"},
		{"dir at another pin", Source{Dir: repo, Pin: first}, "is at "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Pristine(ctx, root, c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Nothing half-made is left where a checkout belongs.
	if _, err := os.Stat(filepath.Join(root, "src", strings.Repeat("ab", 20))); err == nil {
		t.Error("a failed pin left a checkout")
	}
}

func TestPristineDirUsedAsIs(t *testing.T) {
	repo, _, second := gitRepo(t)
	ctx := context.Background()
	if dir, err := Pristine(ctx, "", Source{Dir: repo, Pin: second}); err != nil || dir != repo {
		t.Fatalf("Dir at its pin: %s, %v", dir, err)
	}
	plain := t.TempDir()
	if dir, err := Pristine(ctx, "", Source{Dir: plain, Pin: second}); err != nil || dir != plain {
		t.Fatalf("Dir that is not a checkout: %s, %v", dir, err)
	}
}
