package compilecache_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// TestSharedRedisCache runs flow.Build (what `mage build:rocm` runs) on
// copies of a project whose mlxbuild.yaml names ccache as launcher, with a
// loopback Redis as the shared store in MLXBUILD_LAUNCHER_REMOTE. Checkout A
// builds without the launcher, then with it: the stamp does not change, the
// tree is not rewritten, only the launcher is why, and Redis fills.
// Checkout B, in another directory with an empty cache, gets at least 90% of
// its compiles from Redis. Checkout C has lost Redis and
// still builds; doctor then reports the remote down.
func TestSharedRedisCache(t *testing.T) {
	needROCm(t)
	ctx := context.Background()
	r := startRedis(t)
	work := t.TempDir()
	withRedis := remote(r.URL)

	coA := newCheckout(t, filepath.Join(work, "a"))
	if down := launcherFindings(ctx, coA, withRedis); len(down) != 2 || !down[0].OK || !down[1].OK {
		t.Fatalf("doctor before the builds: %v", down)
	}

	plain, ran := coA.build(t, ctx, remote(""), nil)
	if plain.LauncherTool != "" || plain.Launcher != nil {
		t.Fatalf("MLXBUILD_LAUNCHER=none still used %q: %v", plain.LauncherTool, plain.Launcher)
	}
	if ran["HIP"] < 3 || ran["CXX"] < 3 {
		t.Fatalf("the ROCm tree should compile HIP and C++ files: %v", ran)
	}
	stampFile := filepath.Join(coA.BackendDir(), "stamp.json")
	stampBefore := readBytes(t, stampFile)
	t.Logf("checkout A without a launcher: why %q", plain.Why)

	a, ranA := coA.build(t, ctx, withRedis, nil)
	st := launcherStats(t, "checkout A with the launcher switched on", a)
	t.Logf("checkout A, launcher switched on: %s; Ninja compiled %v; why: %q", st, ranA, a.Why)
	if a.Materialize.Written != 0 || a.Materialize.Removed != 0 || a.Materialize.Restored != 0 {
		t.Errorf("switching the launcher on touched the tree: %+v", a.Materialize)
	}
	if len(a.Why) != 1 || !strings.Contains(a.Why[0], "launcher") || !a.Reconfigured {
		t.Errorf("switching the launcher on should reconfigure for the launcher alone; why: %q, reconfigured %v", a.Why, a.Reconfigured)
	}
	if after := readBytes(t, stampFile); !bytes.Equal(after, stampBefore) {
		t.Errorf("switching the launcher on changed the stamp:\nbefore %s\nafter  %s", stampBefore, after)
	}
	// Ninja's compile commands now start with ccache, so each file
	// compiles once more, through the launcher, into the empty Redis.
	if st.Compiles() != total(ranA) || st.Misses != st.Compiles() || st.RemoteHits != 0 {
		t.Fatalf("checkout A (cold Redis) should miss every one of its %v compiles: %+v", ranA, st)
	}
	if again, ranAgain := coA.build(t, ctx, withRedis, nil); len(again.Why) != 0 || again.Reconfigured || total(ranAgain) != 0 {
		t.Errorf("a second build with the same launcher should do nothing; why %q, reconfigured %v, compiled %v", again.Why, again.Reconfigured, ranAgain)
	}

	coB := newCheckout(t, filepath.Join(work, "elsewhere", "b"))
	b, _ := coB.build(t, ctx, withRedis, nil)
	stB := launcherStats(t, "checkout B", b)
	t.Logf("checkout B: %s (%.0f%% from Redis); phases %v", stB, 100*remoteRate(stB), b.Phases)
	if stB.Compiles() != st.Compiles() {
		t.Errorf("B made %d cacheable compiles, A %d: the same tree must compile the same files", stB.Compiles(), st.Compiles())
	}
	if remoteRate(stB) < 0.9 {
		t.Errorf("B got %d of %d compiles from Redis (%.0f%%), want at least 90%%", stB.RemoteHits, stB.Compiles(), 100*remoteRate(stB))
	}
	// The hits are B's: its own local cache lives in its own directory.
	if _, err := os.Stat(filepath.Join(coB.BackendDir(), "ccache")); err != nil {
		t.Errorf("B's local cache directory: %v", err)
	}

	// Checkout C has lost Redis: stopping it at C's first progress line
	// raced with compiles that all hit in a few milliseconds, so it is
	// stopped before C starts. Every compile must then run locally.
	coC := newCheckout(t, filepath.Join(work, "c"))
	r.Stop()
	c, _ := coC.build(t, ctx, withRedis, nil)
	stC := launcherStats(t, "checkout C", c)
	t.Logf("checkout C, Redis stopped: %s", stC)
	if stC.Compiles() != st.Compiles() || stC.Misses != stC.Compiles() || stC.RemoteErrors == 0 {
		t.Errorf("C should have run compiles locally after remote errors: %+v", stC)
	}
	if down := launcherFindings(ctx, coC, withRedis); len(down) != 2 || !down[0].OK || down[1].OK {
		t.Errorf("doctor with Redis down: %v", down)
	}
}

// launcherStats is the summary's launcher counters, which must be there.
func launcherStats(t testing.TB, which string, sum *flow.Summary) compilecache.Stats {
	t.Helper()
	if sum.LauncherTool != "ccache" || sum.Launcher == nil {
		t.Fatalf("%s: the summary has no ccache statistics (tool %q, stats %v)", which, sum.LauncherTool, sum.Launcher)
	}
	return *sum.Launcher
}

// launcherFindings is what doctor says about the launcher in checkout co.
func launcherFindings(ctx context.Context, co checkout, extra map[string]string) []flow.Finding {
	all, _, _ := flow.Doctor(ctx, flow.Options{Dir: co.Root, Env: co.env(extra), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "")
	var out []flow.Finding
	for _, f := range all {
		if strings.HasPrefix(f.What, "launcher") {
			out = append(out, f)
		}
	}
	return out
}

func total(compiles map[string]int) int {
	n := 0
	for _, c := range compiles {
		n += c
	}
	return n
}

func readBytes(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
