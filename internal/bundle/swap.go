package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// checkOut refuses an output folder Make must not replace: a symbolic
// link (whatever it points at would be replaced), a file, or a folder
// that is not an earlier bundle (no manifest.json at its top), which may
// hold the user's own files.
func checkOut(out string) error {
	st, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("-out=%s: %w", out, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fail.Configf("-out=%s is a symbolic link; bundle replaces the folder whole and will not follow a link: give the real folder, or a new one", out)
	case !st.IsDir():
		return fail.Configf("-out=%s exists and is not a folder; give a new folder or an earlier bundle", out)
	}
	if m, err := os.Lstat(filepath.Join(out, ManifestName)); err != nil || !m.Mode().IsRegular() {
		return fail.Configf("-out=%s exists and is not a bundle (it has no %s); bundle replaces only an earlier bundle: remove it or give a new folder", out, ManifestName)
	}
	return nil
}

// stage makes the temporary folder a bundle is made in, beside out (same
// file system, so the swap is a rename).
func stage(out string) (string, error) {
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("-out=%s: %w", out, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+"-tmp-*")
	if err != nil {
		return "", fmt.Errorf("-out=%s: making the temporary folder: %w", out, err)
	}
	return tmp, os.Chmod(tmp, 0o755)
}

// swapIn puts the finished tmp in out's place: an earlier bundle is moved
// aside first and removed after, so a reader sees the old bundle or the
// new one; a kill between the two renames leaves out missing and the old
// one as .<base>-old-* beside it.
func swapIn(tmp, out string) error {
	if err := checkOut(out); err != nil { // again: it may have changed while the bundle was made
		return err
	}
	var old string
	if _, err := os.Lstat(out); err == nil {
		aside, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+"-old-*")
		if err != nil {
			return err
		}
		old = filepath.Join(aside, "bundle")
		if err := os.Rename(out, old); err != nil {
			os.Remove(aside)
			return fmt.Errorf("-out=%s: moving the earlier bundle aside: %w", out, err)
		}
		defer os.RemoveAll(aside)
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return fmt.Errorf("-out=%s: %w", out, err)
	}
	return nil
}
