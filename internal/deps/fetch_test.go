package deps

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestFetchURLVerifies downloads an archive over HTTP (a loopback server:
// CI has no network), stores it under its hash and unpacks it with the top
// directory stripped; the same archive with a wrong declared hash is
// refused and leaves nothing in the cache.
func TestFetchURLVerifies(t *testing.T) {
	testutil.NeedTools(t, "cmake")
	archive := tarGz(t, "tiny-1.0", map[string]string{"include/tiny.h": "#define TINY 42\n", "CMakeLists.txt": "# tiny\n"})
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path != "/tiny-1.0.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(archive)
	}))
	defer srv.Close()
	ctx := context.Background()

	bad := configs.Dependency{Name: "tiny", URL: srv.URL + "/tiny-1.0.tar.gz", SHA256: strings.Repeat("0", 64), Providers: []string{"cache"}, Origin: "spec.yaml:3:5"}
	badStore := StoreAt(t.TempDir())
	_, err := Fetch(ctx, badStore, []configs.Dependency{bad}, FetchOptions{})
	var mm *HashMismatchError
	if !errors.As(err, &mm) || mm.Got != sha(archive) || !strings.Contains(err.Error(), "spec.yaml:3:5") || !strings.Contains(err.Error(), "nothing was cached") {
		t.Fatalf("wrong hash: got %v, want a mismatch naming the declaration and the real hash %s", err, sha(archive))
	}
	if es := entries(t, filepath.Join(badStore.Dir, "archives")); len(es) != 0 || badStore.Has(bad) {
		t.Errorf("a refused download left %v in the cache", es)
	}

	good := bad
	good.SHA256 = sha(archive)
	store := StoreAt(t.TempDir())
	res, err := Fetch(ctx, store, []configs.Dependency{good}, FetchOptions{})
	if err != nil || len(res) != 1 || !store.Has(good) {
		t.Fatalf("fetch: %v %+v", err, res)
	}
	// A second fetch finds it cached and does not download.
	before := hits
	if res, err = Fetch(ctx, store, []configs.Dependency{good}, FetchOptions{}); err != nil || !strings.HasPrefix(res[0].From, "cached") || hits != before {
		t.Errorf("second fetch: %v %+v, %d downloads", err, res, hits-before)
	}
	dir, err := store.Unpack(ctx, good, "")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "include", "tiny.h")); err != nil || string(b) != "#define TINY 42\n" {
		t.Errorf("unpacked source: %q, %v", b, err)
	}
	// A damaged archive is not unpacked: the store trusts contents, not names.
	os.RemoveAll(dir)
	if err := os.WriteFile(store.Archive(good), []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Unpack(ctx, good, ""); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("unpacking a damaged archive: %v", err)
	}
}

// TestFetchGitDeterministic stores a git commit as an archive whose bytes
// depend on the commit alone: fetched over a transport into the store's
// mirror and read in place from a -mirror directory, the hash is the same;
// a moved tag and a missing mirror entry are errors that say so.
func TestFetchGitDeterministic(t *testing.T) {
	repo, commit := gitRepo(t, map[string]string{"CMakeLists.txt": "# lib\n", "include/lib.h": "int lib();\n", "docs/big.txt": "not needed\n"}, "v1.0")
	ctx := context.Background()
	d := configs.Dependency{Name: "lib", Git: "file://" + repo, Tag: "v1.0", Commit: commit, SHA256: strings.Repeat("0", 64), Providers: []string{"cache"}}
	_, err := Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{d}, FetchOptions{})
	var mm *HashMismatchError
	if !errors.As(err, &mm) {
		t.Fatalf("want a hash mismatch that reports the archive's hash, got %v", err)
	}
	d.SHA256 = mm.Got

	store := StoreAt(t.TempDir())
	if _, err := Fetch(ctx, store, []configs.Dependency{d}, FetchOptions{}); err != nil {
		t.Fatalf("fetch over file://: %v", err)
	}
	mirror := t.TempDir()
	if err := os.Symlink(repo, filepath.Join(mirror, "lib.git")); err != nil {
		t.Fatal(err)
	}
	seeded := StoreAt(t.TempDir())
	res, err := Fetch(ctx, seeded, []configs.Dependency{d}, FetchOptions{Mirror: mirror, Offline: true})
	if err != nil || !strings.Contains(res[0].From, "mirror") {
		t.Fatalf("fetch from the mirror: %v %+v", err, res)
	}
	a, _ := os.ReadFile(store.Archive(d))
	b, _ := os.ReadFile(seeded.Archive(d))
	if len(a) == 0 || sha(a) != sha(b) || sha(a) != d.SHA256 {
		t.Errorf("the two archives of one commit differ: %s vs %s", sha(a), sha(b))
	}

	// paths keeps only what the build uses.
	sub := d
	sub.Paths = []string{"include"}
	sub.SHA256 = strings.Repeat("0", 64)
	_, err = Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{sub}, FetchOptions{Mirror: mirror, Offline: true})
	if !errors.As(err, &mm) || mm.Got == d.SHA256 {
		t.Fatalf("paths: %v", err)
	}
	sub.SHA256 = mm.Got
	subStore := StoreAt(t.TempDir())
	if _, err := Fetch(ctx, subStore, []configs.Dependency{sub}, FetchOptions{Mirror: mirror, Offline: true}); err != nil {
		t.Fatal(err)
	}
	testutil.NeedTools(t, "cmake")
	dir, err := subStore.Unpack(ctx, sub, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "include", "lib.h")); err != nil {
		t.Errorf("paths archive lacks include/lib.h: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs")); !os.IsNotExist(err) {
		t.Errorf("paths archive has docs/: %v", err)
	}

	moved := d
	moved.Commit = strings.Repeat("a", 40)
	if _, err := Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{moved}, FetchOptions{Mirror: mirror, Offline: true}); err == nil || !strings.Contains(err.Error(), "the tag moved") {
		t.Errorf("a tag at another commit: %v", err)
	}
	other := d
	other.Name = "absent"
	other.Git = "https://example.invalid/absent"
	if _, err := Fetch(ctx, StoreAt(t.TempDir()), []configs.Dependency{other}, FetchOptions{Mirror: mirror, Offline: true}); err == nil || !strings.Contains(err.Error(), "has none of absent.git") {
		t.Errorf("offline with the mirror lacking it: %v", err)
	}
}
