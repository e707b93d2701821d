package deps

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// cccl's shape: the repository keeps headers under libcudacxx/include,
// cub/cub and thrust/thrust; the release archive MLX asks for has them
// all under include/.
var ccclShape = map[string]string{
	"CMakeLists.txt":                     "# the whole repository's build\n",
	"libcudacxx/include/cuda/std/cmath":  "// cmath\n",
	"libcudacxx/include/nv/target":       "// nv\n",
	"libcudacxx/test/big.cpp":            "// not stored\n",
	"cub/cub/cub.cuh":                    "// cub\n",
	"cub/test/t.cu":                      "// not stored\n",
	"thrust/thrust/version.h":            "// thrust\n",
	"thrust/thrust/system/cuda/config.h": "// nested\n",
	"docs/index.md":                      "not stored\n",
}

var ccclLayout = []configs.Move{
	{From: "libcudacxx/include", To: "include"},
	{From: "cub/cub", To: "include/cub"},
	{From: "thrust/thrust", To: "include/thrust"},
}

// TestFetchGitLayout stores a commit in the layout a project expects
// (the release archive's, not the repository's), the same bytes from a
// transport and from a mirror, and unpacks to exactly the moved files.
func TestFetchGitLayout(t *testing.T) {
	repo, commit := gitRepo(t, ccclShape, "v3.1.3")
	ctx := context.Background()
	d := configs.Dependency{Name: "cccl", Git: "file://" + repo, Tag: "v3.1.3", Commit: commit, Layout: ccclLayout,
		SHA256: strings.Repeat("0", 64), Providers: []string{"cache"}}
	_, err := Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{d}, FetchOptions{})
	var mm *HashMismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("want a hash mismatch, got %v", err)
	}
	d.SHA256 = mm.Got
	store := StoreAt(t.TempDir())
	if _, err := Fetch(ctx, store, []configs.Dependency{d}, FetchOptions{}); err != nil {
		t.Fatal(err)
	}
	mirror := t.TempDir()
	if err := os.Symlink(repo, filepath.Join(mirror, "cccl.git")); err != nil {
		t.Fatal(err)
	}
	seeded := StoreAt(t.TempDir())
	if _, err := Fetch(ctx, seeded, []configs.Dependency{d}, FetchOptions{Mirror: mirror, Offline: true}); err != nil {
		t.Fatalf("from the mirror: %v", err)
	}
	a, _ := os.ReadFile(store.Archive(d))
	b, _ := os.ReadFile(seeded.Archive(d))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("one commit and layout gave two archives (%d and %d bytes)", len(a), len(b))
	}

	testutil.NeedTools(t, "cmake")
	dir, err := store.Unpack(ctx, d, "")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	got := strings.Join(files, "\n")
	want := strings.Join([]string{
		"include/cub/cub.cuh",
		"include/cuda/std/cmath",
		"include/nv/target",
		"include/thrust/system/cuda/config.h",
		"include/thrust/version.h",
	}, "\n")
	if got != want {
		t.Errorf("unpacked files:\n%s\nwant:\n%s", got, want)
	}
	if c, _ := os.ReadFile(filepath.Join(dir, "include", "thrust", "system", "cuda", "config.h")); string(c) != "// nested\n" {
		t.Errorf("moved file content %q", c)
	}

	// A move of a path the commit lacks stores nothing and says which.
	bad := d
	bad.Layout = append(append([]configs.Move(nil), ccclLayout...), configs.Move{From: "cudax/include", To: "include/cudax"})
	if _, err := Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{bad}, FetchOptions{Mirror: mirror, Offline: true}); err == nil {
		t.Errorf("a layout naming a missing path was stored")
	}
}

// TestMoveLongestFrom picks the deepest move that covers a path.
func TestMoveLongestFrom(t *testing.T) {
	moves := []configs.Move{{From: "a", To: "x"}, {From: "a/b", To: "y"}}
	for _, c := range []struct{ in, want string }{
		{"a/f", "x/f"}, {"a/b/f", "y/f"}, {"a/bc/f", "x/bc/f"}, {"a/b/", "y"}, {"c/f", ""},
	} {
		i, got := move(c.in, moves)
		if i < 0 {
			got = ""
		}
		if got != c.want {
			t.Errorf("move(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzRelayout: any archive either fails cleanly or gives a tar whose
// every entry lies under the prefix, with no name twice.
func FuzzRelayout(f *testing.F) {
	var seed bytes.Buffer
	tw := tar.NewWriter(&seed)
	for _, n := range []string{"p/a/", "p/a/f", "p/b/g", "p/../x"} {
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg})
	}
	tw.Close()
	f.Add(seed.Bytes())
	f.Add([]byte("not a tar"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := relayout(data, "p/", []configs.Move{{From: "a", To: "inc/a"}, {From: "b", To: "inc"}})
		if err != nil {
			return
		}
		tr := tar.NewReader(bytes.NewReader(out))
		seen := map[string]bool{}
		for {
			h, err := tr.Next()
			if err != nil {
				break
			}
			if h.Typeflag == tar.TypeXGlobalHeader {
				continue
			}
			if !strings.HasPrefix(h.Name, "p/inc") || seen[h.Name] {
				t.Fatalf("entry %q (seen before: %v)", h.Name, seen[h.Name])
			}
			seen[h.Name] = true
		}
	})
}
