package overlays

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
)

// Source says where MLX comes from: a git repository (URL, local path or
// file:// URL) at a pin, or a directory used as it is.
type Source struct {
	Git string // repository to clone: URL, local path or file:// URL
	Pin string // full commit id (40 hex digits, 64 for SHA-256 repositories)
	Dir string // a checkout used as is; wins over Git
}

// Pristine makes sure the pristine source at s.Pin exists under cacheRoot and
// returns its directory. Every source shares one bare mirror per repository
// under <cacheRoot>/src/git (cloned once, fetched only when the pin is
// missing); each pin gets its own checkout <cacheRoot>/src/<pin>, made in a
// temporary directory, verified with `git rev-parse HEAD` == pin, then
// renamed into place, and never written to again. Git runs with every GIT_*
// variable of the environment removed, no terminal prompts, and its own
// identity. A lock under <cacheRoot>/src serialises runs of several backends.
//
// With s.Dir set, Pristine returns s.Dir, after checking that its HEAD is
// s.Pin when s.Pin is set and s.Dir is a git checkout.
func Pristine(ctx context.Context, cacheRoot string, s Source) (string, error) {
	if s.Dir != "" {
		dir, err := pristineDir(ctx, s)
		if err != nil {
			return "", err
		}
		// The user's checkout may change between any two runs: it is
		// checked on every one, once it is known to be at the pin (a
		// passed check is kept while its folders are unchanged).
		if err := checkSourceDir(ctx, cacheRoot, dir); err != nil {
			return "", err
		}
		return dir, nil
	}
	if err := checkPin(s.Pin); err != nil {
		return "", err
	}
	if s.Git == "" {
		return "", errors.New("overlays: the MLX source is not set; set source.git (a URL or a local path) or source.dir in mlxbuild.yaml")
	}
	// The project file's loader checks this with its position; this is the
	// last line before git.
	if err := gitrun.CheckRepo(s.Git); err != nil {
		return "", fail.Configf("overlays: source.git %q %v; give a URL (https://, ssh://, git://, file://) or a path in mlxbuild.yaml", s.Git, err)
	}
	if cacheRoot == "" {
		return "", errors.New("overlays: the cache root is empty; set MLXBUILD_CACHE or cache: in mlxbuild.yaml")
	}
	url := s.Git
	if !strings.Contains(url, "://") && !strings.Contains(url, "@") {
		// A local path: make it absolute, since git runs in other directories.
		abs, err := filepath.Abs(url)
		if err != nil {
			return "", fmt.Errorf("overlays: source.git %s: %w", url, err)
		}
		url = abs
	}
	if err := cache.EnsureRoot(cacheRoot); err != nil {
		return "", err
	}
	srcDir := filepath.Join(cacheRoot, "src")
	checkout := filepath.Join(srcDir, s.Pin)
	if ok, err := atPin(ctx, checkout, s.Pin); ok {
		return checkout, nil
	} else if err != nil {
		return "", err
	}
	unlock, err := cache.Lock(ctx, filepath.Join(srcDir, "lock"), nil)
	if err != nil {
		return "", err
	}
	defer unlock()
	// Another backend's run may have made it while we waited.
	if ok, err := atPin(ctx, checkout, s.Pin); ok {
		return checkout, nil
	} else if err != nil {
		return "", err
	}
	mirror := MirrorDir(cacheRoot, url)
	if err := ensureCommit(ctx, mirror, url, s.Pin); err != nil {
		return "", err
	}
	// Checked once, before the checkout is made: a checkout under the
	// cache is never written again, so what it holds was checked.
	if err := checkCommitEntries(ctx, mirror, s.Pin, fmt.Sprintf("source.git %s at %s", s.Git, s.Pin)); err != nil {
		return "", err
	}
	return checkout, makeCheckout(ctx, mirror, checkout, s.Pin)
}

// MirrorDir is the shared bare mirror of a repository under the cache
// root. Fork sync uses the same place, so a fork and MLX that share a
// repository share its objects, under the same source lock.
func MirrorDir(cacheRoot, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(cacheRoot, "src", "git", hex.EncodeToString(sum[:8])+".git")
}

// checkPin refuses anything but a full, lower-case commit id: an abbreviated
// one or a branch name could silently mean another commit later.
func checkPin(pin string) error {
	if (len(pin) != 40 && len(pin) != 64) || !isLowerHex(pin) {
		return fmt.Errorf("overlays: source.pin %q is not a full commit id; set it to the 40-hex-digit id that `git rev-parse <commit>` prints", pin)
	}
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// pristineDir checks a source.dir checkout.
func pristineDir(ctx context.Context, s Source) (string, error) {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return "", fmt.Errorf("overlays: source.dir %s: %w", s.Dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("overlays: source.dir %s is not a directory; fix source.dir in mlxbuild.yaml", s.Dir)
	}
	if s.Pin == "" {
		return dir, nil
	}
	if err := checkPin(s.Pin); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		return dir, nil // not a checkout: nothing to verify against
	}
	head, err := headOf(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("overlays: reading HEAD of source.dir %s: %w; check that it is a valid git checkout", dir, err)
	}
	if head != s.Pin {
		return "", fmt.Errorf("overlays: source.dir %s is at %s, not at source.pin %s; check out the pin there (git -C %s checkout %s) or update source.pin", dir, head, s.Pin, dir, s.Pin)
	}
	return dir, nil
}

// atPin reports whether checkout exists and its HEAD is pin. A checkout at
// another commit is an error: per-pin directories are never moved.
func atPin(ctx context.Context, checkout, pin string) (bool, error) {
	if _, err := os.Stat(checkout); err != nil {
		return false, nil
	}
	head, err := headOf(ctx, checkout)
	if err == nil && head == pin {
		return true, nil
	}
	return false, fmt.Errorf("overlays: the pristine checkout %s is not at %s (HEAD: %q, %v); remove it (mage cache:clean) so it is made again", checkout, pin, head, err)
}

// ensureCommit makes the mirror hold pin: clone it once, fetch every ref if
// the pin is missing, then the pin itself (for commits no ref points at).
func ensureCommit(ctx context.Context, mirror, url, pin string) error {
	if _, err := os.Stat(filepath.Join(mirror, "HEAD")); err != nil {
		if err := (gitrun.Runner{}).CloneMirror(ctx, url, mirror); err != nil {
			return fmt.Errorf("overlays: cloning MLX from %s failed: %w; check source.git in mlxbuild.yaml and that the repository is reachable", url, err)
		}
	}
	if hasCommit(ctx, mirror, pin) {
		return nil
	}
	var errs []error
	for _, args := range [][]string{{"fetch", "--quiet", "--prune", "origin"}, {"fetch", "--quiet", "--", "origin", pin}} {
		if _, err := git(ctx, mirror, args...); err != nil {
			errs = append(errs, err)
		}
		if hasCommit(ctx, mirror, pin) {
			return nil
		}
	}
	if len(errs) == 2 {
		return fmt.Errorf("overlays: fetching %s from %s failed: %w; check source.git in mlxbuild.yaml and that the repository is reachable", pin, url, errors.Join(errs...))
	}
	return fmt.Errorf("overlays: commit %s (source.pin) is not in %s; check source.pin, or that the commit was pushed", pin, url)
}

func hasCommit(ctx context.Context, gitDir, pin string) bool {
	_, err := git(ctx, gitDir, "cat-file", "-e", "--end-of-options", pin+"^{commit}")
	return err == nil
}

// makeCheckout checks pin out into a temporary directory beside checkout,
// verifies HEAD, then renames it into place (gitrun.IntoPlace), so a
// checkout that exists is complete, and a run killed half way leaves
// nothing the next one trips over.
func makeCheckout(ctx context.Context, mirror, checkout, pin string) error {
	err := gitrun.IntoPlace(checkout, func(tmp string) error {
		if _, err := git(ctx, "", "clone", "--quiet", "--shared", "--no-checkout", "--", mirror, tmp); err != nil {
			return fmt.Errorf("cloning: %w", err)
		}
		// git checkout --detach takes no "--" or --end-of-options before the
		// commit in git 2.39; git switch does.
		if _, err := git(ctx, tmp, "switch", "--quiet", "--detach", "--end-of-options", pin); err != nil {
			return fmt.Errorf("checkout: %w", err)
		}
		head, err := git(ctx, tmp, "rev-parse", "HEAD")
		if err != nil {
			return fmt.Errorf("verification: %w", err)
		}
		if head != pin {
			return fmt.Errorf("verification: HEAD is %s", head)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("overlays: checking out %s into %s failed: %w; check free space, then retry", pin, checkout, err)
	}
	return nil
}

// git runs git in dir (a work tree, or a bare repository) with a clean
// environment (see gitrun) and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	return gitrun.Runner{}.Output(ctx, dir, args...)
}
