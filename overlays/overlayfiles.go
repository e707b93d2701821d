package overlays

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// OverlayFiles hashes the overlay alone: every file's slash-separated path
// relative to overlay -> its SHA-256 in hex, records (see Materialize)
// excluded, so that the stamp can say which overlay file changed. It refuses
// the same entries Materialize refuses. An overlay of "" has no files.
func OverlayFiles(overlay string, records []string) (map[string]string, error) {
	out := map[string]string{}
	if overlay == "" {
		return out, nil
	}
	root, err := sourceDir("overlay directory", overlay, "fix the backend's overlay: path in mlxbuild.yaml")
	if err != nil {
		return nil, err
	}
	skip := map[string]bool{}
	for _, r := range records {
		if err := checkRel("record", r); err != nil {
			return nil, err
		}
		skip[r] = true
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("overlays: reading overlay %s: %w; check its permissions", path, err)
		}
		rel := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(path, root), "/"))
		if rel == "" {
			return nil
		}
		if err := safepath.CheckControl(d.Name()); err != nil {
			// The name would reach the tree, the stamp and the build's
			// outputs, where line-based formats cannot hold it.
			return fmt.Errorf("overlays: overlay entry %s: %v", filepath.Join(root, filepath.Dir(rel)), err)
		}
		if skip[rel] || rel == ".git" || strings.HasPrefix(d.Name(), tmpPrefix) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch typ := d.Type(); {
		case typ&fs.ModeSymlink != 0:
			return fmt.Errorf("overlays: overlay entry %s is a symbolic link; an overlay holds whole files: replace the link with the file it points to", path)
		case typ.IsDir():
			return nil
		case !typ.IsRegular():
			return fmt.Errorf("overlays: overlay entry %s is not a regular file (%s); remove it from the overlay", path, typ.Type())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("overlays: reading overlay file %s: %w; check its permissions", path, err)
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
