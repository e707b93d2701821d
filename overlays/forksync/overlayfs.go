package forksync

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// readOverlay reads every regular file of the overlay. Links and other
// special files are refused, as overlays.Materialize refuses them.
func readOverlay(dir string) (files, error) {
	out := files{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file; overlays hold regular files only: replace it with the file itself", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = blob{data: data, exec: fi.Mode()&0o111 != 0}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("forksync: reading the overlay %s: %w", dir, err)
	}
	return out, nil
}

// under reports whether the slash path p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		d = trimSlash(d)
		if p == d || len(p) > len(d) && p[:len(d)] == d && p[len(d)] == '/' {
			return true
		}
	}
	return false
}

func trimSlash(s string) string {
	for len(s) > 1 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
