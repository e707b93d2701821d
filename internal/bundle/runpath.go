package bundle

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// setRunPath sets file's run path to dir with patchelf, a well-kept tool
// that grows the dynamic section where the new string does not fit
// (writing ELF by hand would have to). legacy writes DT_RPATH.
func setRunPath(ctx context.Context, patchelf, file, dir string, legacy bool) error {
	if patchelf == "" {
		p, err := exec.LookPath("patchelf")
		if err != nil {
			return fail.Configf("bundle needs patchelf to rewrite run paths and it is not on PATH; install it (Debian: apt-get install patchelf; mage setup installs it)")
		}
		patchelf = p
	}
	args := []string{"--set-rpath", dir}
	if legacy {
		args = append(args, "--force-rpath")
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: patchelf, Args: append(args, file)})
	if err != nil {
		return fmt.Errorf("patchelf --set-rpath %s %s: %v: %s", dir, file, err, strings.TrimSpace(string(res.Stderr)))
	}
	return nil
}

// noAbsoluteRunPath is the last check before the swap: no ELF file of the
// bundle keeps a run path of the build machine (every entry starts with
// $ORIGIN).
func noAbsoluteRunPath(root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() || strings.HasPrefix(path, filepath.Join(root, "include")) {
			return err
		}
		o, err := readObject(path)
		if err != nil {
			return nil // not ELF: a data file
		}
		for _, p := range append(append([]string(nil), o.runpath...), o.rpath...) {
			if !strings.HasPrefix(p, "$ORIGIN") {
				rel, _ := filepath.Rel(root, path)
				return fmt.Errorf("%s kept the run path %q after patchelf; report this with the file", rel, p)
			}
		}
		return nil
	})
}
