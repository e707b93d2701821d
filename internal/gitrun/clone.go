package gitrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// CloneMirror makes dir a bare mirror of url (which the caller has checked
// with CheckRepo) with automatic garbage collection off: commits fetched by
// id have no ref, and checkouts borrow the mirror's objects. It clones into
// a temporary directory of its own beside dir and renames it into place, so
// a dir that exists is complete (see IntoPlace).
func (r Runner) CloneMirror(ctx context.Context, url, dir string) error {
	return IntoPlace(dir, func(tmp string) error {
		if _, err := r.Output(ctx, "", "clone", "--quiet", "--mirror", "--", url, tmp); err != nil {
			return err // git's own message names the URL
		}
		if _, err := r.Output(ctx, tmp, "config", "gc.auto", "0"); err != nil {
			return fmt.Errorf("configuring the clone %s: %w", tmp, err)
		}
		return nil
	})
}

// IntoPlace runs fill on a new, empty, uniquely named directory beside
// final and renames it to final when fill succeeds; on failure it is
// removed. The caller holds the lock that guards final. Temporary
// directories of earlier runs that were killed are removed first; when one
// cannot be (a git the killed run started may still write into it), the new
// name still differs from it, so the run converges anyway.
func IntoPlace(final string, fill func(tmp string) error) error {
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w; make the cache directory writable or set MLXBUILD_CACHE", parent, err)
	}
	RemoveStaleTemps(final)
	tmp, err := os.MkdirTemp(parent, filepath.Base(final)+tempInfix)
	if err != nil {
		return fmt.Errorf("creating a temporary directory beside %s: %w; check free space and permissions", final, err)
	}
	if err := fill(tmp); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("moving %s into place as %s: %w", tmp, final, err)
	}
	return nil
}

// tempInfix joins a final name and the random part of its temporary
// directories: <final>.tmp-<random>.
const tempInfix = ".tmp-"

// RemoveStaleTemps removes the temporary directories of final that runs
// killed before their rename left (and <final>.tmp, the fixed name earlier
// versions used), as far as it can.
func RemoveStaleTemps(final string) {
	stale, _ := filepath.Glob(globQuote(final) + tempInfix + "*")
	for _, d := range append(stale, final+".tmp") {
		os.RemoveAll(d)
	}
}

// globQuote escapes the pattern characters of a path for filepath.Glob.
func globQuote(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, p[i])
	}
	return string(b)
}
