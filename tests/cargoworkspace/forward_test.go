package cargoworkspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestForwardedPlanRelinks is the stale link of issue 18 with the build
// script that only forwards a prior build's cargo.txt
// (examples/cargo-consumer): an MLX edit seen by Cargo before mlxbuild
// rebuilt (the script reruns, links the old archive), then `mage
// build:cpu`, then `cargo run`. Only the archive named in cargo.txt can
// tell Cargo that libmlx.a changed: every other watched input is as it was
// at the script's last run.
func TestForwardedPlanRelinks(t *testing.T) {
	testutil.NeedTools(t, "cargo", "go", "cmake", "ninja", "c++")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mlx := filepath.Join(tmp, "mlx")
	testutil.CopyTree(t, filepath.Join(repo, "examples", "minimlx", "mlx"), mlx)
	testutil.WriteFile(t, filepath.Join(tmp, "mlxbuild.yaml"), "source:\n  dir: mlx\ncache: cache\n")
	env := append(testutil.EnvWithout("LD_LIBRARY_PATH", "CARGO_TARGET_DIR", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "RUSTFLAGS"),
		"MLXBUILD_CONFIG="+filepath.Join(tmp, "mlxbuild.yaml"),
		"MLXBUILD_CARGO_TXT="+filepath.Join(tmp, "cache", "cpu", "out", "cargo.txt"),
		"CARGO_TARGET_DIR="+filepath.Join(tmp, "target"),
		"MAGEFILE_CACHE="+filepath.Join(tmp, "magefile-cache"),
		"MLXBUILD_JOBS=2", "CARGO_NET_OFFLINE=true", "NO_COLOR=1",
	)
	consumer := filepath.Join(repo, "examples", "cargo-consumer")
	build := func() { testutil.RunOK(t, env, repo, "go", "run", "mage.go", "build:cpu") }
	run := func() string {
		return testutil.RunOK(t, env, consumer, "cargo", "run", "--quiet", "--manifest-path", filepath.Join(consumer, "Cargo.toml"))
	}

	build()
	if out := run(); !strings.Contains(out, "mlx 0.1.0 backend=cpu") {
		t.Fatalf("first run:\n%s", out)
	}
	version := filepath.Join(mlx, "mlx", "version.cpp")
	src, err := os.ReadFile(version)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, version, strings.Replace(string(src), "return MLX_VERSION;", `return "0.1.0-edited";`, 1))
	// Cargo sees the edit of the checkout first: the script reruns, but
	// the archive is still the old one.
	if out := run(); !strings.Contains(out, "mlx 0.1.0 backend=cpu") {
		t.Fatalf("run before the rebuild:\n%s", out)
	}
	build()
	if out := run(); !strings.Contains(out, "mlx 0.1.0-edited backend=cpu") {
		t.Fatalf("cargo run after `mage build:cpu` ran the old libmlx.a:\n%s", out)
	}
}
