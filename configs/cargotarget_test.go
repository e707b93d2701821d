package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCacheFollowsCargoTargetDir: inside a build script the default cache
// is mlxbuild/ in Cargo's target directory (CARGO_TARGET_DIR, else read
// from OUT_DIR, also for a --target build), so `cargo clean` removes it;
// MLXBUILD_CACHE and the project file's cache: still win, and outside a
// build script CARGO_TARGET_DIR changes nothing.
func TestCacheFollowsCargoTargetDir(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "mlxbuild.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "mlx"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("source:\n  dir: mlx\n")
	elsewhere := filepath.Join(t.TempDir(), "tgt")
	out := func(target string) string { return filepath.Join(target, "debug", "build", "mlx-sys-0123abcd", "out") }
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"CARGO_TARGET_DIR in a build script", map[string]string{"OUT_DIR": out(elsewhere), "CARGO_TARGET_DIR": elsewhere, "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		{"--target-dir, read from OUT_DIR", map[string]string{"OUT_DIR": out(elsewhere), "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		{"a --target build", map[string]string{"OUT_DIR": filepath.Join(elsewhere, "x86_64-unknown-linux-gnu", "release", "build", "mlx-sys-1", "out"), "TARGET": "x86_64-unknown-linux-gnu", "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		{"not Cargo's layout", map[string]string{"OUT_DIR": filepath.Join(elsewhere, "o"), "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(dir, "target", "mlxbuild")},
		{"not Cargo's layout, CARGO_TARGET_DIR absolute", map[string]string{"OUT_DIR": filepath.Join(elsewhere, "o"), "CARGO_TARGET_DIR": elsewhere, "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		// Relative to where cargo started, not to the build script's
		// directory (the crate's), which is the process's here.
		{"a relative CARGO_TARGET_DIR", map[string]string{"OUT_DIR": out(elsewhere), "CARGO_TARGET_DIR": "tgt", "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		// cargo build --target-dir over an inherited CARGO_TARGET_DIR.
		{"--target-dir over CARGO_TARGET_DIR", map[string]string{"OUT_DIR": out(elsewhere), "CARGO_TARGET_DIR": filepath.Join(dir, "stale"), "CARGO_PKG_NAME": "mlx-sys"}, filepath.Join(elsewhere, "mlxbuild")},
		{"outside a build script", map[string]string{"CARGO_TARGET_DIR": elsewhere}, filepath.Join(dir, "target", "mlxbuild")},
		{"MLXBUILD_CACHE wins", map[string]string{"OUT_DIR": out(elsewhere), "CARGO_TARGET_DIR": elsewhere, "CARGO_PKG_NAME": "mlx-sys", "MLXBUILD_CACHE": filepath.Join(dir, "own")}, filepath.Join(dir, "own")},
	} {
		t.Run(c.name, func(t *testing.T) {
			get := func(k string) string { return c.env[k] }
			cfg, err := LoadConfig(dir, get)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.CacheRoot.Value != c.want {
				t.Errorf("cache root %s (%s), want %s", cfg.CacheRoot.Value, cfg.CacheRoot.Origin, c.want)
			}
			if got := GuessCacheRoot(dir, get); got != c.want {
				t.Errorf("GuessCacheRoot %s, want %s", got, c.want)
			}
		})
	}
	t.Run("the project file's cache: wins", func(t *testing.T) {
		write("source:\n  dir: mlx\ncache: mine\n")
		cfg, err := LoadConfig(dir, func(k string) string {
			return map[string]string{"OUT_DIR": out(elsewhere), "CARGO_TARGET_DIR": elsewhere, "CARGO_PKG_NAME": "mlx-sys"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.CacheRoot.Value != filepath.Join(dir, "mine") || !strings.HasPrefix(cfg.CacheRoot.Origin, "project ") {
			t.Errorf("cache root %+v, want the project's %s", cfg.CacheRoot, filepath.Join(dir, "mine"))
		}
	})
}
