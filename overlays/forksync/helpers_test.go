package forksync

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testEnv is the environment of the test's own git commands: no GIT_* from
// outside, a HOME of its own (no user configuration), a fixed identity.
func testEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home,
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1")
}

func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("git is not installed")
		}
		t.Fatal("git is not installed")
	}
}

// gitRepo is a repository the test makes and commits to.
type gitRepo struct {
	t    testing.TB
	dir  string
	home string
}

func newRepo(t testing.TB, dir string) *gitRepo {
	t.Helper()
	needGit(t)
	home := t.TempDir()
	r := &gitRepo{t: t, dir: dir, home: home}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "--quiet", "-b", "main")
	return r
}

// clone makes a clone of r at dir.
func (r *gitRepo) clone(dir string) *gitRepo {
	r.t.Helper()
	c := &gitRepo{t: r.t, dir: dir, home: r.home}
	r.git("clone", "--quiet", r.dir, dir)
	return c
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = testEnv(r.home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), r.dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (nil content removes one), commits them all and
// returns the commit id.
func (r *gitRepo) commit(msg string, files map[string]string) string {
	r.t.Helper()
	for p, c := range files {
		path := filepath.Join(r.dir, filepath.FromSlash(p))
		if c == "\x00remove" {
			if err := os.Remove(path); err != nil {
				r.t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(c), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "--quiet", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

const removed = "\x00remove"

// lines makes a file of n numbered lines, with some lines replaced.
func lines(name string, n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if r, ok := replace[i]; ok {
			b.WriteString(r + "\n")
			continue
		}
		fmt.Fprintf(&b, "%s line %d\n", name, i)
	}
	return b.String()
}

// snapshot is every file of a directory with its mode, for byte-for-byte
// comparisons.
type snapshot map[string]string

func snap(t testing.TB, dir string) snapshot {
	t.Helper()
	s := snapshot{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			s[rel+"/"] = fi.Mode().String()
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s[rel] = fi.Mode().String() + " " + string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sameSnap(t testing.TB, got, want snapshot) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s is missing", k)
		} else if g != w {
			t.Errorf("%s changed:\n got %q\nwant %q", k, clipTest(g), clipTest(w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

func clipTest(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
