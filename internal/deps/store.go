package deps

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Store is the content-addressed dependency cache under a cache root:
//
//	deps/archives/<sha256><ext>  what was verified: an archive as downloaded,
//	                              or the deterministic archive of a git commit
//	deps/src/<sha256>/            the archive unpacked, for CMake
//	deps/git/<name>.git           bare mirrors of git dependencies
//
// An archive is stored only after its hash matched the spec, and named by
// that hash, so a wrong or truncated file can never be found by a build.
type Store struct {
	Dir string
}

// StoreAt returns the store under a cache root.
func StoreAt(cacheRoot string) Store { return Store{Dir: filepath.Join(cacheRoot, "deps")} }

// Lock is the file that serializes writers of the store.
func (s Store) Lock() string { return filepath.Join(s.Dir, "lock") }

// Archive is where d's verified archive lives.
func (s Store) Archive(d configs.Dependency) string {
	return filepath.Join(s.Dir, "archives", d.SHA256+ArchiveExt(d))
}

// Source is where d's unpacked source lives.
func (s Store) Source(d configs.Dependency) string { return filepath.Join(s.Dir, "src", d.SHA256) }

func (s Store) gitMirror(d configs.Dependency) string {
	return filepath.Join(s.Dir, "git", d.Name+".git")
}

// Has reports whether d's archive is in the store.
func (s Store) Has(d configs.Dependency) bool {
	st, err := os.Stat(s.Archive(d))
	return err == nil && st.Mode().IsRegular()
}

// archiveExts are the archive kinds `cmake -E tar` unpacks, longest first.
var archiveExts = []string{".tar.gz", ".tar.xz", ".tar.bz2", ".tar.zst", ".tgz", ".txz", ".tar", ".zip"}

// ArchiveExt is the extension d's stored archive has: a git commit is
// stored as .tar.gz; a URL keeps the extension of its file name.
func ArchiveExt(d configs.Dependency) string {
	if d.URL == "" {
		return ".tar.gz"
	}
	base := urlBase(d.URL)
	for _, e := range archiveExts {
		if strings.HasSuffix(strings.ToLower(base), e) {
			return e
		}
	}
	return ".tar.gz"
}

func urlBase(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Path != "" {
		return path.Base(u.Path)
	}
	return path.Base(raw)
}

// HashMismatchError is a download or mirror file whose hash is not the
// one the spec declares. Nothing was stored.
type HashMismatchError struct {
	Dep       configs.Dependency
	From      string
	Got, Want string
}

func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("%s from %s has sha256 %s, but %s declares %s: refused, nothing was cached\n"+
		"  if the new content is intended, put the new hash in the spec; otherwise the source changed or was tampered with",
		e.Dep.Name, e.From, e.Got, originOf(e.Dep), e.Want)
}

func originOf(d configs.Dependency) string {
	if d.Origin != "" {
		return d.Origin
	}
	return "the spec"
}

// put streams r into the store as d's archive if its sha256 matches the
// spec; on a mismatch or an error nothing is left behind.
func (s Store) put(d configs.Dependency, from string, r io.Reader) error {
	dir := filepath.Join(s.Dir, "archives")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".incoming-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), r); err != nil {
		tmp.Close()
		return fmt.Errorf("reading %s for %s: %w", from, d.Name, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	got := hex.EncodeToString(h.Sum(nil))
	if got != d.SHA256 {
		return &HashMismatchError{Dep: d, From: from, Got: got, Want: d.SHA256}
	}
	return os.Rename(tmp.Name(), s.Archive(d))
}

// verify rehashes a stored archive: the store is trusted only as far as
// its contents still match their names.
func (s Store) verify(d configs.Dependency) error {
	f, err := os.Open(s.Archive(d))
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.SHA256 {
		return fmt.Errorf("the cached archive %s of %s has sha256 %s, not its name: the cache is damaged; delete that file and run deps:fetch again", s.Archive(d), d.Name, got)
	}
	return nil
}

// Unpack makes d's source directory from its verified archive, once, and
// returns it. Like FetchContent, a single top-level directory in the
// archive is stripped, so the source directory holds the CMakeLists.txt.
func (s Store) Unpack(ctx context.Context, d configs.Dependency, cmakeProg string) (string, error) {
	dst := s.Source(d)
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		return dst, nil
	}
	if err := s.verify(d); err != nil {
		return "", err
	}
	if err := checkMembers(ctx, s.Archive(d)); err != nil {
		return "", fmt.Errorf("unpacking %s: %w", d.Name, err)
	}
	parent := filepath.Dir(dst)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, ".unpack-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if cmakeProg == "" {
		cmakeProg = "cmake"
	}
	// cmake -E tar reads every format FetchContent accepts (xz, zip, zstd)
	// and CMake is needed for the build anyway; Go's library lacks xz.
	if _, err := proc.Run(ctx, proc.Cmd{Path: cmakeProg, Args: []string{"-E", "tar", "xf", s.Archive(d)}, Dir: tmp}); err != nil {
		return "", fmt.Errorf("unpacking %s (%s): %w", d.Name, s.Archive(d), err)
	}
	root, err := singleTop(tmp)
	if err != nil {
		return "", err
	}
	if err := os.Rename(root, dst); err != nil {
		if _, serr := os.Stat(dst); serr == nil {
			return dst, nil // another process unpacked it first
		}
		return "", err
	}
	return dst, nil
}

// singleTop returns dir's only entry when it is a directory, else dir.
func singleTop(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	if len(entries) == 1 && entries[0].IsDir() {
		return filepath.Join(dir, entries[0].Name()), nil
	}
	if len(entries) == 0 {
		return "", errors.New("the archive is empty")
	}
	// Move the entries into a fresh directory so the rename moves one thing.
	inner := filepath.Join(dir, ".root")
	if err := os.Mkdir(inner, 0o755); err != nil {
		return "", err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(dir, e.Name()), filepath.Join(inner, e.Name())); err != nil {
			return "", err
		}
	}
	return inner, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
