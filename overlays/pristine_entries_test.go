package overlays

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// hostileSource makes a repository whose one commit holds a plain MLX
// file and what plant adds (run is git in the repository), and returns
// its work tree (for source.dir) and the commit (for source.git).
func hostileSource(t *testing.T, plant func(dir string, run func(...string) string)) (dir, pin string) {
	t.Helper()
	dir, run := newRepo(t, files{"CMakeLists.txt": "v1\n", "mlx/array.h": "// v1\n"})
	plant(dir, run)
	run("add", "--ignore-removal", ".") // a gitlink has no folder on disk
	run("commit", "--quiet", "-m", "hostile")
	return dir, run("rev-parse", "HEAD")
}

// materializeSource is what a build does with a source: the pristine step,
// then the tree. It returns the error and the tree's path.
func materializeSource(t *testing.T, s Source) (string, string, error) {
	t.Helper()
	root := t.TempDir()
	tree := filepath.Join(root, "cpu", "tree")
	dir, err := Pristine(context.Background(), root, s)
	if err == nil {
		_, _, err = Materialize(dir, "", tree, filepath.Join(root, "cpu", "manifest"), nil)
	}
	return root, tree, err
}

// refusedBeforeWriting checks that a source was refused as bad
// configuration, naming every want, with no tree and no checkout made.
func refusedBeforeWriting(t *testing.T, s Source, want ...string) {
	t.Helper()
	root, tree, err := materializeSource(t, s)
	if err == nil {
		t.Fatalf("accepted; the tree holds %v", readFiles(t, tree))
	}
	if fail.ExitCode(err) != 2 {
		t.Errorf("exit %d, want 2: %v", fail.ExitCode(err), err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q:\n%v", w, err)
		}
	}
	if _, err := os.Lstat(tree); !os.IsNotExist(err) {
		t.Errorf("the tree was made (%v)", err)
	}
	if s.Pin != "" && s.Dir == "" {
		if _, err := os.Lstat(filepath.Join(root, "src", s.Pin)); !os.IsNotExist(err) {
			t.Errorf("the checkout was made (%v)", err)
		}
	}
}

// sources are the two ways a hostile commit reaches a build.
func bothSources(t *testing.T, dir, pin string, want ...string) {
	t.Run("git", func(t *testing.T) { refusedBeforeWriting(t, Source{Git: dir, Pin: pin}, want...) })
	t.Run("dir", func(t *testing.T) { refusedBeforeWriting(t, Source{Dir: dir, Pin: pin}, want...) })
}

func TestPristineRefusesAnAbsoluteLink(t *testing.T) {
	dir, pin := hostileSource(t, func(dir string, _ func(...string) string) {
		if err := os.Symlink("/etc/hostname", filepath.Join(dir, "mlx", "host.h")); err != nil {
			t.Fatal(err)
		}
	})
	bothSources(t, dir, pin, `refusing unsafe path "mlx/host.h": it is a symbolic link to the absolute path "/etc/hostname"`)
}

func TestPristineRefusesALinkThatClimbsOut(t *testing.T) {
	dir, pin := hostileSource(t, func(dir string, _ func(...string) string) {
		if err := os.Symlink("../../../..", filepath.Join(dir, "mlx", "up")); err != nil {
			t.Fatal(err)
		}
	})
	bothSources(t, dir, pin, `refusing unsafe path "mlx/up": it is a symbolic link to "../../../..", which leaves the source's root`)
}

func TestPristineRefusesANewlineInAName(t *testing.T) {
	dir, pin := hostileSource(t, func(dir string, _ func(...string) string) {
		writeFiles(t, dir, files{"mlx/a.h\ncargo:rustc-link-arg=-Wl,-rpath,/tmp/evil": "// planted\n"})
	})
	// A folder on disk ("...-rpath,/tmp/" holds evil): the walk of a
	// source.dir names the folder, git's listing the file.
	bothSources(t, dir, pin, `refusing unsafe path "mlx/a.h\ncargo:rustc-link-arg=-Wl,-rpath,`, "it holds a newline at byte 7")
}

// A submodule is a gitlink in the commit's tree; a checkout of it holds
// an empty folder (not initialised) or one with a .git of its own.
func TestPristineRefusesASubmodule(t *testing.T) {
	const sub = "0123456789abcdef0123456789abcdef01234567"
	dir, pin := hostileSource(t, func(dir string, run func(...string) string) {
		writeFiles(t, dir, files{".gitmodules": "[submodule \"mlx/sub\"]\n\tpath = mlx/sub\n\turl = https://example.com/sub\n"})
		run("update-index", "--add", "--cacheinfo", "160000,"+sub+",mlx/sub")
	})
	bothSources(t, dir, pin, "submodule mlx/sub at "+sub+": mlxbuild does not fetch submodules; ")

	// Checked out, the folder is a repository of its own.
	if err := os.MkdirAll(filepath.Join(dir, "mlx", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := git(context.Background(), filepath.Join(dir, "mlx", "sub"), "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	t.Run("dir checked out", func(t *testing.T) {
		refusedBeforeWriting(t, Source{Dir: dir, Pin: pin}, "submodule mlx/sub")
	})
}

// Every bad entry is named in one error, and a link that stays inside the
// source is kept.
func TestPristineReportsEveryBadEntryAndKeepsInnerLinks(t *testing.T) {
	dir, pin := hostileSource(t, func(dir string, run func(...string) string) {
		for target, link := range map[string]string{"/etc/hostname": "mlx/host.h", "../../../..": "mlx/up", "../CMakeLists.txt": "mlx/top.txt"} {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
		writeFiles(t, dir, files{"mlx/a.h\ncargo:x": "// planted\n"})
	})
	bothSources(t, dir, pin, "holds 3 entries mlxbuild will not copy", `"mlx/host.h"`, `"mlx/up"`, `"mlx/a.h\ncargo:x"`)

	good, goodPin := hostileSource(t, func(dir string, _ func(...string) string) {
		if err := os.Symlink("array.h", filepath.Join(dir, "mlx", "alias.h")); err != nil {
			t.Fatal(err)
		}
	})
	for _, s := range []Source{{Git: good, Pin: goodPin}, {Dir: good, Pin: goodPin}} {
		_, tree, err := materializeSource(t, s)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		if target, err := os.Readlink(filepath.Join(tree, "mlx", "alias.h")); err != nil || target != "array.h" {
			t.Errorf("%+v: the inner link is %q (%v)", s, target, err)
		}
	}
}

// A checkout an earlier mlxbuild made was not checked: the tree's writer
// refuses what the check would have refused, a link out and a control
// character, rather than copy it.
func TestMaterializeRefusesAnUncheckedCheckoutsLinksAndNames(t *testing.T) {
	for name, plant := range map[string]func(dir string){
		"link": func(dir string) {
			if err := os.Symlink("/etc/hostname", filepath.Join(dir, "mlx", "host.h")); err != nil {
				t.Fatal(err)
			}
		},
		"name": func(dir string) { writeFiles(t, dir, files{"mlx/a.h\ncargo:x": "// planted\n"}) },
	} {
		t.Run(name, func(t *testing.T) {
			pristine := t.TempDir()
			writeFiles(t, pristine, files{"CMakeLists.txt": "v1\n", "mlx/array.h": "// v1\n"})
			plant(pristine)
			root := t.TempDir()
			_, _, err := Materialize(pristine, "", filepath.Join(root, "tree"), filepath.Join(root, "manifest"), nil)
			if err == nil || fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "cache:clean") {
				t.Errorf("got %v, want a refusal (exit 2) that says cache:clean", err)
			}
		})
	}
}
