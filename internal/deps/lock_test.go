package deps

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestLockRequestWithoutMirror: with no mirror, a tag is resolved by
// asking the repository (ls-remote) and its commit fetched into the
// store's git mirror, and a URL is read as given; each hash is that of
// the bytes the cache will store, and nothing enters the verified store
// until Put.
func TestLockRequestWithoutMirror(t *testing.T) {
	testutil.NeedTools(t, "git")
	repo, commit := gitRepo(t, map[string]string{"CMakeLists.txt": "add_library(g INTERFACE)\n"}, "v1.0")
	store := Store{Dir: filepath.Join(t.TempDir(), "deps")}
	ctx := context.Background()
	at := fail.Pos{File: "/src/CMakeLists.txt", Line: 3, Col: 1}

	l, err := LockRequest(ctx, Request{Name: "g", Git: repo, Tag: "v1.0", At: at}, nil, LockSource{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if l.Dep.Commit != commit || l.Dep.Tag != "v1.0" || l.Dep.SHA256 != sha(l.Archive) {
		t.Errorf("locked %+v, want commit %s and the archive's hash", l.Dep, commit)
	}
	if store.Has(l.Dep) {
		t.Error("the archive is in the store before Put")
	}
	if err := store.Put(l); err != nil || !store.Has(l.Dep) {
		t.Errorf("Put: %v", err)
	}

	_, err = LockRequest(ctx, Request{Name: "g", Git: repo, Tag: "v9", At: at}, nil, LockSource{Store: store})
	if err == nil || !strings.Contains(err.Error(), "/src/CMakeLists.txt:3:1: "+repo+" has no tag v9") || fail.KindOf(err) != fail.Config {
		t.Errorf("a tag the repository lacks: %v", err)
	}

	archive := tarGz(t, "a-1.0", map[string]string{"x.h": "1\n"})
	file := filepath.Join(t.TempDir(), "a-1.0.tar.gz")
	if err := os.WriteFile(file, archive, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = LockRequest(ctx, Request{Name: "a", URL: "file://" + file, URLHash: "SHA256=" + strings.ToUpper(sha(archive)), At: at}, nil, LockSource{Store: store})
	if err != nil || l.Dep.SHA256 != sha(archive) || l.Dep.URL != "file://"+file {
		t.Errorf("a URL with its published hash: %+v, %v", l.Dep, err)
	}
}
