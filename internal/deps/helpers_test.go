package deps

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// tarGz makes a .tar.gz of files (path -> content) under one top directory,
// as a release archive is laid out.
func tarGz(t testing.TB, top string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sha(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// gitRepo makes a repository with one commit of files, tagged tag, and
// returns its directory and commit.
func gitRepo(t testing.TB, files map[string]string, tag string) (string, string) {
	t.Helper()
	testutil.NeedTools(t, "git")
	dir := t.TempDir()
	env := append(testutil.EnvWithout("GIT_DIR", "GIT_WORK_TREE"),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z")
	testutil.RunOK(t, env, dir, "git", "init", "-q", "-b", "main")
	for name, content := range files {
		testutil.WriteFile(t, filepath.Join(dir, name), content)
	}
	testutil.RunOK(t, env, dir, "git", "add", "-A")
	testutil.RunOK(t, env, dir, "git", "commit", "-q", "-m", "one")
	if tag != "" {
		testutil.RunOK(t, env, dir, "git", "tag", tag)
	}
	return dir, strings.TrimSpace(testutil.RunOK(t, env, dir, "git", "rev-parse", "HEAD"))
}

func entries(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
