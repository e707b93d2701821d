package configs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/cache"
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

// TestEditorTargetDirReusesProjectCache: a build script whose Cargo target
// directory has no cache yet (rust-analyzer's target/rust-analyzer, a
// lint job's own CARGO_TARGET_DIR) uses the project's existing cache, the
// one above it or target/mlxbuild beside the project file, instead of
// building MLX a second time; a cache of another project's is never taken,
// and a target directory with a cache of its own keeps it.
func TestEditorTargetDirReusesProjectCache(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "mlx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mlxbuild.yaml"), []byte("source:\n  dir: mlx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	built := func(root, project string) string {
		t.Helper()
		if err := cache.Prepare(cache.For(root, "cpu"), project); err != nil {
			t.Fatal(err)
		}
		return root
	}
	out := func(target string) string { return filepath.Join(target, "debug", "build", "mlx-sys-0123abcd", "out") }
	root := func(env map[string]string) string {
		t.Helper()
		cfg, err := LoadConfig(dir, func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		return cfg.CacheRoot.Value
	}
	envFor := func(target string) map[string]string {
		return map[string]string{"OUT_DIR": out(target), "CARGO_PKG_NAME": "mlx-sys"}
	}

	// The user's build in <ws>/target; rust-analyzer's in target/rust-analyzer.
	ws := t.TempDir()
	user := built(filepath.Join(ws, "target", "mlxbuild"), dir)
	if got := root(envFor(filepath.Join(ws, "target", "rust-analyzer"))); got != user {
		t.Errorf("rust-analyzer's target directory: cache %s, want the user's %s", got, user)
	}
	// A separate target directory elsewhere: the cache beside the project file.
	elsewhere := filepath.Join(t.TempDir(), "ra")
	if got := root(envFor(elsewhere)); got != filepath.Join(elsewhere, "mlxbuild") {
		t.Errorf("no project cache beside the project file yet: cache %s, want the target directory's own", got)
	}
	beside := built(filepath.Join(dir, "target", "mlxbuild"), dir)
	if got := root(envFor(elsewhere)); got != beside {
		t.Errorf("separate target directory: cache %s, want the project's %s", got, beside)
	}
	// Another project's cache above the target directory is not this one's.
	other := t.TempDir()
	built(filepath.Join(other, "target", "mlxbuild"), t.TempDir())
	if got := root(envFor(filepath.Join(other, "target", "clippy"))); got != beside {
		t.Errorf("under another project's cache: %s, want this project's %s", got, beside)
	}
	// A target directory with a cache of its own keeps it.
	own := built(filepath.Join(ws, "target", "rust-analyzer", "mlxbuild"), dir)
	if got := root(envFor(filepath.Join(ws, "target", "rust-analyzer"))); got != own {
		t.Errorf("target directory with its own cache: %s, want %s", got, own)
	}
}
