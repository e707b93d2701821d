package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReplaceDir makes dir hold files (names without slashes) as one unit: a
// reader of dir sees every file of the old set or every file of the new
// one, never a mix, and a process killed at any point leaves one of the two.
// A rename swaps one file only, so a set of files renamed one by one can be
// left half old and half new; instead dir is a symbolic link to a generation
// directory, ".<base>-gen-*" beside it, filled and synced first, and the
// link is replaced by a rename. The previous generation is removed after
// the swap. A dir that is still a plain directory (an older layout) is moved
// aside first; a kill right then leaves dir missing, which the next write
// mends. When dir already holds exactly files, nothing is written (their
// mtimes stay, so whatever watches them does not rerun) and changed is
// false. Leftovers of killed writes match ".<base>-*" beside dir.
func ReplaceDir(dir string, files map[string][]byte) (changed bool, err error) {
	return replaceDir(dir, files, func(string) {})
}

// replaceDir is ReplaceDir with a call at each step, for the test that
// kills a writer at every one of them.
func replaceDir(dir string, files map[string][]byte, step func(name string)) (changed bool, err error) {
	if holds(dir, files) {
		return false, nil
	}
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return false, &Error{Op: OpCreate, Path: dir, Err: err}
	}
	gen, err := os.MkdirTemp(parent, "."+base+"-gen-*")
	if err != nil {
		return false, &Error{Op: OpCreate, Path: dir, Err: err}
	}
	fail := func(op string, err error) (bool, error) {
		os.RemoveAll(gen)
		return false, &Error{Op: op, Path: dir, Err: err}
	}
	if err := os.Chmod(gen, 0o755); err != nil {
		return fail(OpChmod, err)
	}
	for name, data := range files {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return fail(OpCreate, fmt.Errorf("%q is not a plain file name", name))
		}
		if err := (Options{Perm: 0o644}).Write(filepath.Join(gen, name), data); err != nil {
			return fail(OpWrite, err)
		}
	}
	if err := syncDir(gen); err != nil {
		return fail(OpSync, err)
	}
	step("staged")
	old, _ := os.Readlink(dir)
	link := gen + ".link"
	if err := os.Symlink(filepath.Base(gen), link); err != nil {
		return fail(OpCreate, err)
	}
	step("linked")
	if st, err := os.Lstat(dir); err == nil && st.IsDir() {
		aside := filepath.Join(parent, "."+base+"-old-"+strings.TrimPrefix(filepath.Base(gen), "."+base+"-gen-"))
		if err := os.Rename(dir, aside); err != nil {
			os.Remove(link)
			return fail(OpRename, err)
		}
		defer os.RemoveAll(aside)
		step("moved aside")
	}
	if err := os.Rename(link, dir); err != nil {
		os.Remove(link)
		return fail(OpRename, err)
	}
	if err := syncDir(parent); err != nil {
		return true, &Error{Op: OpSync, Path: dir, Err: err}
	}
	step("swapped")
	// Only a generation of ours, by name, is ever removed.
	if old != "" && filepath.Base(old) == old && strings.HasPrefix(old, "."+base+"-gen-") {
		os.RemoveAll(filepath.Join(parent, old))
	}
	return true, nil
}

// holds says whether dir has exactly the content of files for each name.
func holds(dir string, files map[string][]byte) bool {
	for name, data := range files {
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(old, data) {
			return false
		}
	}
	return true
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
