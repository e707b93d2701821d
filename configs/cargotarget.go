package configs

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
)

// cargoTargetDir is the target directory of the Cargo build whose build
// script runs mlxbuild, "" outside a build script (Cargo sets OUT_DIR for
// build scripts only). It is read from OUT_DIR's place,
// <target>[/<triple>]/<profile>/build/<crate>-<hash>/out, which Cargo makes
// absolute and which is right whichever way the directory was chosen:
// --target-dir and .cargo/config.toml are never handed to build scripts,
// --target-dir overrides the CARGO_TARGET_DIR a script still inherits, and
// a relative CARGO_TARGET_DIR is relative to where cargo was started, not
// to the script's directory. An absolute CARGO_TARGET_DIR is taken only
// where OUT_DIR is not in Cargo's layout.
func cargoTargetDir(env func(string) string) string {
	out := env("OUT_DIR")
	if out == "" {
		return ""
	}
	out = filepath.Clean(out)
	build := filepath.Dir(filepath.Dir(out))
	if filepath.Base(build) != "build" || !strings.HasPrefix(filepath.Base(filepath.Dir(out)), env("CARGO_PKG_NAME")) {
		if t := env("CARGO_TARGET_DIR"); filepath.IsAbs(t) {
			return filepath.Clean(t)
		}
		return "" // not Cargo's layout: keep the default beside the project file
	}
	target := filepath.Dir(filepath.Dir(build))
	// Cross builds (--target) put the profile under the triple.
	if triple := env("TARGET"); triple != "" && filepath.Base(target) == triple {
		target = filepath.Dir(target)
	}
	return target
}

// defaultCacheRoot is the cache when neither MLXBUILD_CACHE nor the project
// file's cache: names one: mlxbuild/ in the Cargo build's target directory
// inside a build script, so `cargo clean` removes it with the target
// directory; else target/mlxbuild beside the project file. A target
// directory without a cache of its own first looks for the project's
// existing one (projectCache): an editor's or lint job's separate target
// directory then reuses the user's build instead of building MLX again.
func defaultCacheRoot(projectDir string, env func(string) string) setting {
	if t := cargoTargetDir(env); t != "" {
		if c := projectCache(projectDir, t); c != "" {
			return setting{c, "built-in (the project's existing cache; Cargo's target directory " + t + " has none)"}
		}
		return setting{filepath.Join(t, "mlxbuild"), "built-in (mlxbuild/ in Cargo's target directory " + t + ")"}
	}
	return setting{filepath.Join(projectDir, "target", "mlxbuild"), "built-in (target/mlxbuild beside the project file)"}
}

// projectCache is the project's existing cache for a Cargo build whose
// target directory has no mlxbuild/ yet, "" when there is none: mlxbuild/
// in the nearest directory above the target directory that has one
// (rust-analyzer's `cargo.targetDir: true` is target/rust-analyzer, a
// lint job's often target/<name>), else target/mlxbuild beside the
// project file (where `mage build:<backend>` and a workspace at the
// project's root build). Only a cache that holds a build of this
// project's counts (cache.OwnedBy): another project's is never shared. A
// target directory with a cache of its own keeps it, so once two caches
// exist neither run moves.
func projectCache(projectDir, target string) string {
	if _, err := os.Lstat(filepath.Join(target, "mlxbuild")); err == nil {
		return ""
	}
	for d := filepath.Dir(target); ; d = filepath.Dir(d) {
		if c := filepath.Join(d, "mlxbuild"); cache.OwnedBy(c, projectDir) {
			return c
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if c := filepath.Join(projectDir, "target", "mlxbuild"); cache.OwnedBy(c, projectDir) {
		return c
	}
	return ""
}
