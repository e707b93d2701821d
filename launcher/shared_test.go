package launcher_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/launcher"
)

// TestSharedRedisCache builds the example's ROCm tree (C++ and HIP) through
// ccache with a loopback Redis as the shared store: checkout A fills it;
// checkout B, in another directory with an empty local cache and build
// directory, gets at least 90% of its compiles from Redis; checkout C loses
// Redis after its first step and still builds.
func TestSharedRedisCache(t *testing.T) {
	rocm := needROCm(t)
	ctx := context.Background()
	r := startRedis(t)
	cfg, err := launcher.FromEnv(&backends.Launcher{Tool: "ccache", Remote: r.URL}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range cfg.Check(ctx) {
		if !f.OK {
			t.Fatalf("doctor before the builds: %s", f)
		}
	}
	work := t.TempDir()

	a, ran := build(t, ctx, rocm, newCheckout(t, filepath.Join(work, "a")), cfg, nil)
	t.Logf("checkout A: %s; Ninja compiled %v", a, ran)
	if ran["HIP"] < 3 || ran["CXX"] < 3 {
		t.Fatalf("the ROCm tree should compile HIP and C++ files: %v", ran)
	}
	if a.Compiles() != ran["HIP"]+ran["CXX"]+ran["C"] || a.Misses != a.Compiles() || a.RemoteHits != 0 {
		t.Fatalf("checkout A (cold) should miss every one of its %v compiles: %+v", ran, a)
	}

	coB := newCheckout(t, filepath.Join(work, "elsewhere", "b"))
	b, _ := build(t, ctx, rocm, coB, cfg, nil)
	t.Logf("checkout B: %s (%.0f%% from Redis)", b, 100*b.RemoteRate())
	if b.Compiles() != a.Compiles() {
		t.Errorf("B made %d cacheable compiles, A %d: the same tree must compile the same files", b.Compiles(), a.Compiles())
	}
	if b.RemoteRate() < 0.9 {
		t.Errorf("B got %d of %d compiles from Redis (%.0f%%), want at least 90%%", b.RemoteHits, b.Compiles(), 100*b.RemoteRate())
	}
	// B's own cache directory started empty, and the hits are B's.
	if _, err := os.Stat(filepath.Join(coB.BackendDir, "ccache")); err != nil {
		t.Errorf("B's local cache directory: %v", err)
	}

	stop := &stopOnFirstStep{stop: r.Stop}
	c, _ := build(t, ctx, rocm, newCheckout(t, filepath.Join(work, "c")), cfg, stop)
	t.Logf("checkout C, Redis stopped after its first step: %s", c)
	if !stop.stopped {
		t.Fatal("Redis was never stopped: no progress line seen")
	}
	if c.Compiles() != a.Compiles() || c.Misses == 0 || c.RemoteErrors == 0 {
		t.Errorf("C should have run compiles locally after remote errors: %+v", c)
	}
	down := cfg.Check(ctx)
	if len(down) != 2 || !down[0].OK || down[1].OK {
		t.Errorf("doctor with Redis down: %v", down)
	}
}
