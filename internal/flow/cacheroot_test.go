package flow_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// userProject is a project as a user has it: a git directory, uncommitted
// work, the MLX source and the overlay (with its records) under examples/,
// a sibling project beside it and other tools' caches in a fake home.
type userProject struct {
	Root, Home, Dir string
}

func newUserProject(t *testing.T) *userProject {
	t.Helper()
	root := t.TempDir()
	u := &userProject{Root: root, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "work", "app")}
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "mlx"), filepath.Join(u.Dir, "examples", "minimlx", "mlx"))
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "patches-rocm"), filepath.Join(u.Dir, "examples", "minimlx", "patches-rocm"))
	for path, body := range map[string]string{
		"work/app/.git/HEAD":                                    "ref: refs/heads/main\n",
		"work/app/src/main.rs":                                  "fn main() { /* uncommitted */ }\n",
		"work/app/examples/minimlx/patches-rocm/UPSTREAM":       "commit: 0123456789abcdef0123456789abcdef01234567\n",
		"work/app/examples/minimlx/patches-rocm/LOCAL_FIXES.md": "# Local fixes\n",
		"work/sibling/README.md":                                "another project\n",
		"home/.cache/pip/wheels/x.whl":                          "another tool's cache\n",
		"home/notes.txt":                                        "the user's\n",
		"downloads/big.iso":                                     "not a cache\n",
	} {
		testutil.WriteFile(t, filepath.Join(root, filepath.FromSlash(path)), body)
	}
	if err := os.Symlink(".", filepath.Join(u.Dir, "here")); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "XDG_CACHE_HOME"} {
		t.Setenv(v, "")
	}
	t.Setenv("HOME", u.Home)
	t.Setenv("NO_COLOR", "1")
	return u
}

// writeProjectFile writes mlxbuild.yaml with cache (omitted when "") and
// returns the position of cache's value.
func (u *userProject) writeProjectFile(t *testing.T, cache string) string {
	t.Helper()
	yaml := "source:\n  dir: examples/minimlx/mlx\n  pin: " + examplePin + "\n" +
		"backends:\n  rocm:\n    overlay: examples/minimlx/patches-rocm\n"
	if cache != "" {
		yaml += "cache: " + cache + "\n"
	}
	file := filepath.Join(u.Dir, "mlxbuild.yaml")
	testutil.WriteFile(t, file, yaml)
	return fmt.Sprintf("%s:7:8", file)
}

// TestCacheRootThatHoldsUserFilesIsRefused runs overlay:apply and then
// cache:clean with each cache root that used to delete the user's files
// (issue 14, item 1): both must fail with exit status 2 naming the cache:
// key's position or MLXBUILD_CACHE, and every file under the temporary
// root (the project, its sibling, the fake home) must be byte for byte
// what it was, with nothing created.
func TestCacheRootThatHoldsUserFilesIsRefused(t *testing.T) {
	cases := []struct {
		name, cache, env string // env: MLXBUILD_CACHE relative to the temporary root
		why              string
	}{
		{name: "cache .", cache: ".", why: "project's root"},
		{name: "cache ..", cache: "..", why: "project's root"},
		{name: "cache examples", cache: "examples", why: "holds source.dir"},
		{name: "cache = overlay", cache: "examples/minimlx/patches-rocm", why: "is backends.rocm.overlay"},
		{name: "cache = source", cache: "examples/minimlx/mlx", why: "is source.dir"},
		{name: "cache inside the overlay", cache: "examples/minimlx/patches-rocm/cache", why: "lies inside backends.rocm.overlay"},
		{name: "cache through a symlink", cache: "here", why: "project's root"},
		{name: "env = project", env: "work/app", why: "project's root"},
		{name: "env = parent", env: "work", why: "project's root"},
		{name: "env = home", env: "home", why: "home directory"},
		{name: "env = $HOME/.cache", env: "home/.cache", why: "every tool shares"},
		{name: "env = a user's directory", env: "downloads", why: "not mlxbuild's cache"},
	}
	// The file system root is a case of configs' TestCacheRootRefused
	// only: run here, a regression would write /rocm as root.
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := newUserProject(t)
			pos := u.writeProjectFile(t, c.cache)
			where := pos
			if c.env != "" {
				env := filepath.Join(u.Root, c.env)
				t.Setenv("MLXBUILD_CACHE", env)
				where = "MLXBUILD_CACHE=" + env
			}
			before := testutil.Snapshot(t, u.Root)
			var out, errs bytes.Buffer
			o := flow.Options{Dir: u.Dir, Stdout: &out, Stderr: &errs}
			_, applyErr := flow.Apply(context.Background(), o, "rocm")
			cleanErr := flow.Clean(o, "", false)
			for step, err := range map[string]error{"overlay:apply": applyErr, "cache:clean": cleanErr} {
				if fail.KindOf(err) != fail.Config {
					t.Errorf("%s: want a configuration error (exit 2), got %v", step, err)
					continue
				}
				if !strings.Contains(err.Error(), where) || !strings.Contains(err.Error(), c.why) {
					t.Errorf("%s: the error does not name %s and say %q:\n%v", step, where, c.why, err)
				}
			}
			if diff := testutil.SnapshotDiff(before, testutil.Snapshot(t, u.Root)); diff != "" {
				t.Errorf("user files changed:\n%s", diff)
			}
		})
	}
}

// TestCacheCleanKeepsUnknownEntries: a good cache gets a stray user file;
// cache:clean removes what overlay:apply made, keeps the stray file and
// says so.
func TestCacheCleanKeepsUnknownEntries(t *testing.T) {
	u := newUserProject(t)
	u.writeProjectFile(t, "target/mlxbuild")
	var out, errs bytes.Buffer
	o := flow.Options{Dir: u.Dir, Stdout: &out, Stderr: &errs}
	if _, err := flow.Apply(context.Background(), o, "rocm"); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(u.Dir, "target", "mlxbuild")
	stray := filepath.Join(cache, "rocm", "my-notes.txt")
	testutil.WriteFile(t, stray, "keep me\n")
	if err := flow.Clean(o, "", false); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(stray); err != nil || string(b) != "keep me\n" {
		t.Errorf("cache:clean removed an entry it did not make: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(cache, "rocm", "tree")); !os.IsNotExist(err) {
		t.Errorf("cache:clean left the tree: %v", err)
	}
	if !strings.Contains(errs.String(), "left "+stray) {
		t.Errorf("cache:clean did not say what it left:\n%s", errs.String())
	}
}
