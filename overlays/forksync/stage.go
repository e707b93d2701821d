package forksync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// errNoExchange says the platform or file system cannot swap two directories
// in one step.
var errNoExchange = errors.New("no atomic directory exchange")

// stageDir is where a sync builds the new overlay: beside it, so the swap is
// a rename on one file system. A conflicted sync leaves it for the user.
func stageDir(overlay string) string {
	return filepath.Join(filepath.Dir(overlay), "."+filepath.Base(overlay)+".sync")
}

// retargetStageDir is stageDir for a retarget: its own name, so that a
// conflicted retarget's staging copy and a sync's never replace each other.
func retargetStageDir(overlay string) string {
	return filepath.Join(filepath.Dir(overlay), "."+filepath.Base(overlay)+".retarget")
}

// oldDir holds the previous overlay between the two renames of the
// fallback swap and its removal.
func oldDir(overlay string) string {
	return filepath.Join(filepath.Dir(overlay), "."+filepath.Base(overlay)+".sync-old")
}

// swapDir is the other side of the one-step exchange: the staged copy is
// moved here first, so that after the exchange the old overlay lands here
// and never in stageDir, which the user is pointed at after a conflict.
// Whatever it holds when no sync runs is stale: recoverSwap removes it.
func swapDir(overlay string) string {
	return filepath.Join(filepath.Dir(overlay), "."+filepath.Base(overlay)+".sync-swap")
}

// swapStep is called after each step of swap; tests stop a swap there (an
// error return, or a kill while it blocks) to prove every crash point
// converges.
var swapStep = func(step string) error { return nil }

// exchangeDirs is exchange; tests make it errNoExchange to run the two
// renames a platform without renameat2 takes.
var exchangeDirs = exchange

// lockOverlay makes the cache root mlxbuild's (the lock is the first file
// in it), takes the lock of one overlay's syncs and retargets (two would
// stage into the same directory), and finishes or undoes a swap a crash
// interrupted, so the caller starts from one whole overlay.
func lockOverlay(ctx context.Context, cacheRoot, overlay string) (unlock func() error, err error) {
	if err := cache.EnsureRoot(cacheRoot); err != nil {
		return nil, err
	}
	unlock, err = cache.Lock(ctx, syncLock(cacheRoot, overlay), nil)
	if err != nil {
		return nil, err
	}
	if err := recoverSwap(overlay); err != nil {
		unlock()
		return nil, err
	}
	return unlock, nil
}

// commit stages the overlay with write and remove applied in staged and,
// unless there are conflicts, swaps it in. With conflicts the overlay is
// left as it was and the staging copy stays for the user: each conflict
// gets its staged copy's path, sorted by path, and commit returns true.
func commit(overlay, staged string, write files, remove []string, conflicts []conflict) (conflicted bool, err error) {
	if err := stage(overlay, staged, write, remove); err != nil {
		return false, err
	}
	if len(conflicts) > 0 {
		for i := range conflicts {
			conflicts[i].staged = filepath.Join(staged, filepath.FromSlash(conflicts[i].path))
		}
		sort.Slice(conflicts, func(i, j int) bool { return conflicts[i].path < conflicts[j].path })
		return true, nil
	}
	return false, swap(staged, overlay)
}

// stage makes a copy of overlay at dir with the changes applied: files in
// write are (re)written, paths in remove deleted (with directories they
// leave empty). Unchanged files are copies with the same mode and mtime;
// not hard links, so that editing a staged file while resolving a conflict
// can never change the overlay behind the user's back.
func stage(overlay, dir string, write files, remove []string) error {
	paths := make([]string, 0, len(write))
	for p := range write {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// Every path is checked before the first write: a refused one leaves
	// no staging directory behind.
	if err := safepath.CheckAll(paths); err != nil {
		return err
	}
	if err := safepath.CheckAll(remove); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("forksync: removing the previous staging directory %s: %w; remove it by hand", dir, err)
	}
	err := filepath.WalkDir(overlay, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(overlay, path)
		dst := filepath.Join(dir, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.Mkdir(dst, fi.Mode().Perm()|0o700)
		}
		if _, ok := write[filepath.ToSlash(rel)]; ok {
			return nil // written below
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			return err
		}
		return os.Chtimes(dst, fi.ModTime(), fi.ModTime())
	})
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("forksync: copying the overlay %s to %s: %w; check free space and permissions", overlay, dir, err)
	}
	for _, p := range paths {
		b := write[p]
		dst, err := safepath.Join(dir, p)
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if b.exec {
			mode = 0o755
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("forksync: staging %s: %w", p, err)
		}
		if err := os.WriteFile(dst, b.data, mode); err != nil {
			return fmt.Errorf("forksync: staging %s: %w", p, err)
		}
		// WriteFile keeps an existing file's mode and the umask trims a new
		// one's: set the bits the fork says.
		if err := os.Chmod(dst, mode); err != nil {
			return fmt.Errorf("forksync: staging %s: %w", p, err)
		}
	}
	for _, p := range remove {
		dst, err := safepath.Join(dir, p)
		if err != nil {
			return err
		}
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("forksync: staging the removal of %s: %w", p, err)
		}
		// Drop directories the removal emptied, up to the overlay root.
		for d := filepath.Dir(dst); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return nil
}

// swap puts the staged directory in the overlay's place. On Linux the
// staged copy is moved to swapDir and exchanged with the overlay in one
// renameat2(RENAME_EXCHANGE), so a crash at any moment leaves either the old
// or the new overlay in place, never none, and the old one in swapDir;
// elsewhere (or on a file system without it) two renames do it through
// oldDir. recoverSwap finishes either after a crash.
func swap(staged, overlay string) error {
	old, other := oldDir(overlay), swapDir(overlay)
	for _, d := range []string{old, other} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("forksync: removing %s: %w; remove it by hand and sync again", d, err)
		}
	}
	if err := os.Rename(staged, other); err != nil {
		return fmt.Errorf("forksync: moving the staged overlay %s to %s: %w; nothing changed", staged, other, err)
	}
	if err := swapStep("staged-moved"); err != nil {
		return err
	}
	err := exchangeDirs(other, overlay)
	switch {
	case err == nil:
		// other now holds the old overlay.
		if err := swapStep("exchanged"); err != nil {
			return err
		}
		if err := os.RemoveAll(other); err != nil {
			return fmt.Errorf("forksync: the overlay is updated, but removing the old copy %s failed: %w; remove it by hand", other, err)
		}
		return nil
	case errors.Is(err, errNoExchange):
		if err := os.Rename(overlay, old); err != nil {
			os.Rename(other, staged)
			return fmt.Errorf("forksync: moving the overlay %s aside: %w; nothing changed, the merged copy is in %s", overlay, err, staged)
		}
		if err := swapStep("moved-aside"); err != nil {
			return err
		}
		if err := os.Rename(other, overlay); err != nil {
			if rerr := os.Rename(old, overlay); rerr != nil {
				return fmt.Errorf("forksync: moving %s into place failed (%v) and so did restoring the overlay from %s (%v); move %s back to %s by hand", other, err, old, rerr, old, overlay)
			}
			return fmt.Errorf("forksync: moving %s into place: %w; nothing changed", other, err)
		}
		if err := swapStep("moved-in"); err != nil {
			return err
		}
	default:
		os.Rename(other, staged)
		return fmt.Errorf("forksync: swapping %s into %s: %w; nothing changed, the merged copy is in %s", staged, overlay, err, staged)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("forksync: the overlay is updated, but removing the old copy %s failed: %w; remove it by hand", old, err)
	}
	return nil
}

// recoverSwap finishes or undoes a swap a crash interrupted: with the
// overlay missing and the old copy present, the old copy goes back (the
// two-rename path crashed between its renames); then, with an overlay in
// place, the leftovers beside it (the old copy, the exchange's other side,
// holding the old overlay or an unused staged one) are removed.
func recoverSwap(overlay string) error {
	old := oldDir(overlay)
	if _, err := os.Stat(overlay); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(old); err != nil {
			return nil // no overlay and nothing to restore it from: the caller says so
		}
		if err := os.Rename(old, overlay); err != nil {
			return fmt.Errorf("forksync: restoring the overlay %s from %s after an interrupted sync: %w; move it back by hand", overlay, old, err)
		}
	}
	for _, d := range []string{old, swapDir(overlay)} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("forksync: removing %s, left by an interrupted sync: %w; remove it by hand", d, err)
		}
	}
	return nil
}
