package flow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
)

// markRelink keeps the layout's relink file, the one output cargo.txt
// names as rerun-if-changed: changed (the archives were rebuilt or the plan
// differs) sets its mtime to now, so a `cargo build` after a `mage
// build:<backend>` reruns the build script and relinks; a missing one is
// made, since Cargo reruns a build script on every build while a path it
// watches is missing. The archives themselves are not watched: a build
// script run that rebuilds them makes them newer than its own start, and
// Cargo would rerun it, and recompile every dependent, once more.
func markRelink(l cache.Layout, changed bool) error {
	if !changed {
		if _, err := os.Stat(l.Relink); err == nil {
			return nil
		}
	}
	if err := os.WriteFile(l.Relink, []byte("the archives or the link plan of this backend changed at this file's mtime\n"), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w; check free space and permissions", l.Relink, err)
	}
	now := time.Now()
	return os.Chtimes(l.Relink, now, now)
}

// backdateRelink sets the relink file's mtime back to when Cargo started
// the build script that runs mlxbuild, if it is later: Cargo reruns a
// script when a watched path is newer than the script's start, and what
// this very run rebuilt is already linked by the run. Cargo records the
// start as the mtime of invoked.timestamp beside OUT_DIR; where there is
// none (another Cargo layout) the file keeps its time and the script runs
// once more.
func backdateRelink(relink string, env func(string) string) error {
	out := env("OUT_DIR")
	if out == "" {
		return nil
	}
	start, err := os.Stat(filepath.Join(filepath.Dir(out), "invoked.timestamp"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	cur, err := os.Stat(relink)
	if err != nil || !cur.ModTime().After(start.ModTime()) {
		return err
	}
	return os.Chtimes(relink, start.ModTime(), start.ModTime())
}
