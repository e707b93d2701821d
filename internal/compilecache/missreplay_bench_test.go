package compilecache_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// benchBuildEnv names a finished build directory (Ninja, CMake's
// compile_commands.json) whose compiles BenchmarkMissCost replays; unset, a
// small stand-in is built.
const benchBuildEnv = "MLXBUILD_BENCH_BUILD"

// BenchmarkMissCost replays every compile of a finished build (see
// missreplay_test.go), alternating plain and through ccache with an empty
// cache, one round over all compiles per iteration. It reports the median
// of each side per compile, the mean difference (what ccache adds to a
// miss), and that difference summed over the compiles against their
// durations in the build itself (.ninja_log): the share a cold build
// through an empty cache spends on ccache, goal <= 3%.
//
//	MLXBUILD_BENCH_BUILD=<build dir> go test -run '^$' -bench MissCost -benchtime 3x ./internal/compilecache
func BenchmarkMissCost(b *testing.B) {
	testutil.NeedTools(b, "ccache", "ninja", "cmake")
	ctx := context.Background()
	dir := os.Getenv(benchBuildEnv)
	if dir == "" {
		testutil.NeedTools(b, "/usr/bin/g++")
		dir = standInBuild(b)
	}
	compiles, skipped, err := recordedCompiles(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	if len(compiles) == 0 {
		b.Fatalf("%s: no compile to replay (%d left out: no object, deps or log entry)", dir, skipped)
	}
	r := newReplayer(b, dir)
	var plain, cached []time.Duration
	var extra time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range compiles {
			var took [2]time.Duration // plain, through ccache
			for k := range 2 {
				via := (i+j+k)%2 == 1 // the order swaps every compile and round
				d, err := r.run(ctx, c, via)
				if err != nil {
					b.Fatal(err)
				}
				took[boolIndex(via)] = d
			}
			plain, cached = append(plain, took[0]), append(cached, took[1])
			extra += took[1] - took[0]
		}
	}
	b.StopTimer()
	var builtMs int
	for _, c := range compiles {
		builtMs += c.tookMs
	}
	perCompile := extra / time.Duration(len(plain))
	b.ReportMetric(float64(len(compiles)), "compiles")
	b.ReportMetric(ms(median(plain)), "plain-ms")
	b.ReportMetric(ms(median(cached)), "ccache-ms")
	b.ReportMetric(ms(perCompile), "miss-cost-ms")
	b.ReportMetric(float64(builtMs)/1000, "built-s")
	b.ReportMetric(100*ms(perCompile)*float64(len(compiles))/float64(builtMs), "%of-build")
	b.Logf("%s: %d compiles (%d left out), %d ms in the build; ccache adds %.1f ms a miss", dir, len(compiles), skipped, builtMs, ms(perCompile))
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestMissReplayIsFaithful checks what the benchmark rests on, on a stand-in
// build: every compile is found with its object and its deps, the stand-in
// compiler writes exactly the recorded object, each run through ccache is a
// miss, and ccache files the result under the replayed depfile, so the same
// replay into the same cache is a hit (the miss did all its work: hashed the
// headers, stored the object).
func TestMissReplayIsFaithful(t *testing.T) {
	testutil.NeedTools(t, "ccache", "ninja", "cmake", "/usr/bin/g++")
	ctx := context.Background()
	dir := standInBuild(t)
	compiles, skipped, err := recordedCompiles(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(compiles) != 3 || skipped != 0 {
		t.Fatalf("found %d compiles, %d left out; want the stand-in's 3", len(compiles), skipped)
	}
	r := newReplayer(t, dir)
	for _, c := range compiles {
		if !bytes.Contains([]byte(c.depfile), []byte("shared.h")) || !bytes.Contains([]byte(c.depfile), []byte("/vector")) {
			t.Errorf("%s: depfile lacks the headers:\n%s", c.object, c.depfile)
		}
		for _, via := range []bool{false, true} {
			if _, err := r.run(ctx, c, via); err != nil {
				t.Fatal(err)
			}
			got, err1 := os.ReadFile(filepath.Join(r.scratch, "out.o"))
			want, err2 := os.ReadFile(c.object)
			if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s (through ccache: %v): the replayed object differs from the build's (%v, %v)", c.object, via, err1, err2)
			}
		}
		// The cache the last run left: the same compile again is a hit.
		env := append(r.env, "CCACHE_DIR="+filepath.Join(r.scratch, "ccache"))
		if err := r.cfg.ZeroStats(ctx, env); err != nil {
			t.Fatal(err)
		}
		if err := r.again(ctx, c); err != nil {
			t.Fatal(err)
		}
		if st, err := r.cfg.Stats(ctx, env); err != nil || st.Hits != 1 {
			t.Errorf("%s replayed into its own cache: %+v, %v; want a hit", c.object, st, err)
		}
	}
}
