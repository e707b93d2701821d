package forksync

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlxbuild/mlxbuild/cache"
)

// Preimages are the overlay's files as they were before a retarget from..to
// changed them: the overlay as it stood at the old pin. overlay:apiDrift
// builds its baseline (source.pin) with them, not with the retargeted core
// files: those break at the old pin what they break at the new one, and
// their breaks would be dropped as "not the bump's".
type Preimages struct {
	Dir    string   `json:"-"`      // where they are kept; the files are under Dir/files
	From   string   `json:"from"`   // the retarget's old pin, a full id
	To     string   `json:"to"`     // its new pin, a full id
	Files  []string `json:"files"`  // slash paths saved, content and mtime as they were
	Absent []string `json:"absent"` // paths the retarget created: not in the overlay before it
}

// preimagesRecord is the file that says what a pre-image folder holds;
// written last, so a folder without it is an interrupted save.
const preimagesRecord = "record.json"

// PreimagesDir is where the pre-images of backend's retarget from..to are
// kept: <cache>/retarget/<backend>/<from12>-<to12>.
func PreimagesDir(cacheRoot, backend, from, to string) string {
	return filepath.Join(cacheRoot, "retarget", backend, short(from)+"-"+short(to))
}

// ReadPreimages reads the pre-images of backend's retarget from..to (full
// ids); nil, nil when none were saved.
func ReadPreimages(cacheRoot, backend, from, to string) (*Preimages, error) {
	dir := PreimagesDir(cacheRoot, backend, from, to)
	data, err := os.ReadFile(filepath.Join(dir, preimagesRecord))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("forksync: reading the retarget's pre-images: %w", err)
	}
	p := &Preimages{Dir: dir}
	if err := json.Unmarshal(data, p); err != nil {
		return nil, fmt.Errorf("forksync: %s: %w; remove %s and run overlay:retarget again from the overlay as it was before", filepath.Join(dir, preimagesRecord), err, dir)
	}
	if p.From != from || p.To != to {
		return nil, nil // another retarget whose short ids collide
	}
	return p, nil
}

// savePreimages keeps the overlay's copies of paths (slash paths; one the
// overlay lacks is recorded as absent) before a retarget from..to writes
// them, each with its content and mtime. A retarget re-run between the same
// pins, after the user resolved its conflicts in the overlay, keeps what
// the first run saved: that is the overlay before the bump, the re-run's
// is not. The folder is made beside its place and renamed into it.
func savePreimages(cacheRoot, backend, overlay, from, to string, paths []string) error {
	if prev, err := ReadPreimages(cacheRoot, backend, from, to); err != nil || prev != nil {
		return err
	}
	dir := PreimagesDir(cacheRoot, backend, from, to)
	if err := cache.EnsureRoot(cacheRoot); err != nil {
		return err
	}
	if err := cache.CheckFolder(cacheRoot, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("forksync: saving the retarget's pre-images: %w; make the cache directory writable", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-"+filepath.Base(dir)+"-")
	if err != nil {
		return fmt.Errorf("forksync: saving the retarget's pre-images: %w; make the cache directory writable", err)
	}
	defer os.RemoveAll(tmp)
	p := &Preimages{From: from, To: to, Files: []string{}, Absent: []string{}}
	for _, rel := range slices.Sorted(slices.Values(paths)) {
		src := filepath.Join(overlay, filepath.FromSlash(rel))
		if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
			p.Absent = append(p.Absent, rel)
			continue
		}
		if err := copyKeepingTimes(src, filepath.Join(tmp, "files", filepath.FromSlash(rel))); err != nil {
			return fmt.Errorf("forksync: saving the pre-image of %s: %w", src, err)
		}
		p.Files = append(p.Files, rel)
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, preimagesRecord), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("forksync: saving the retarget's pre-images: %w", err)
	}
	// A folder without its record is an interrupted save: replace it.
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("forksync: removing the interrupted save %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("forksync: saving the retarget's pre-images: %w", err)
	}
	return nil
}

// OverlayView makes dst (removed first) the overlay as it was before the
// retarget: every file of overlay, those the retarget changed replaced by
// their pre-images and those it created left out. Every file is a copy
// with its source's mtime: the tree materializer takes a newer mtime with
// the same content for a touch and recompiles what depends on the file.
func (p *Preimages) OverlayView(overlay, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return fmt.Errorf("forksync: removing the old overlay view %s: %w", dst, err)
	}
	pre := map[string]bool{}
	for _, f := range p.Files {
		pre[f] = true
	}
	for _, f := range p.Absent {
		pre[f] = true
	}
	err := filepath.WalkDir(overlay, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(overlay, path)
		if err != nil || d.IsDir() || pre[filepath.ToSlash(rel)] {
			return err
		}
		return copyKeepingTimes(path, filepath.Join(dst, rel))
	})
	if err != nil {
		return fmt.Errorf("forksync: making the pre-retarget view of the overlay %s: %w", overlay, err)
	}
	for _, f := range p.Files {
		if err := copyKeepingTimes(filepath.Join(p.Dir, "files", filepath.FromSlash(f)), filepath.Join(dst, filepath.FromSlash(f))); err != nil {
			return fmt.Errorf("forksync: making the pre-retarget view of the overlay: %w", err)
		}
	}
	return os.MkdirAll(dst, 0o755)
}

// copyKeepingTimes copies the regular file src to dst (its folders made),
// with src's permission bits and modification time.
func copyKeepingTimes(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file; overlays hold regular files only: replace it with the file itself", src)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
		return err
	}
	if err := os.Chmod(dst, fi.Mode().Perm()); err != nil {
		return err
	}
	return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}
