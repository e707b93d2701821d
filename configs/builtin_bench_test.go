package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// coldEnv makes the test binary a fresh process that loads the example
// project's ROCm spec once, the way a run of mlxbuild does, times it, and
// exits (see TestMain).
const coldEnv = "MLXBUILD_COLD_SPEC"

func TestMain(m *testing.M) {
	if way := os.Getenv(coldEnv); way != "" {
		os.Exit(coldLoad(way))
	}
	os.Exit(m.Run())
}

// coldLoad loads the built-in rocm spec extended by the example's
// override, then fingerprints it, in a process that has done neither
// before, the old way (parse the embedded YAML, json.Marshal) or the new
// one (generated spec, specJSON), and prints both times in ns.
func coldLoad(way string) int {
	file := filepath.Join("..", "examples", "minimlx", "rocm.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	t0 := time.Now()
	var base *Spec
	if way == "old" {
		base, err = parseEmbedded("rocm")
	} else {
		base, err = Builtin("rocm")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	over, err := parseOverride(file, data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	merged := Merge(base, over)
	var ps problems
	validateSpec(merged, nil, Pos{File: file, Line: 1, Col: 1}, &ps)
	t1 := time.Now()
	var sum string
	if way == "old" {
		raw, _ := json.Marshal(merged)
		h := sha256.Sum256(raw)
		sum = hex.EncodeToString(h[:8])
	} else {
		sum = merged.Fingerprint()
	}
	t2 := time.Now()
	fmt.Println(t1.Sub(t0).Nanoseconds(), t2.Sub(t1).Nanoseconds(), sum)
	return 0
}

// BenchmarkColdSpecLoad starts this test binary afresh for every load, the
// old way and the new one alternately, so both see the same machine, and
// reports the medians of what a run pays for its spec: the load (built-in
// + the example's override + merge + validation) and the fingerprint, with
// the ratios old/new. In-process loops would hide the fingerprint's cost:
// encoding/json builds its encoders once per process.
//
//	go test ./configs -run '^$' -bench ColdSpecLoad -benchtime 40x
func BenchmarkColdSpecLoad(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	times := map[string][]float64{}
	sums := map[string]string{}
	for i := 0; i < b.N; i++ {
		for _, way := range []string{"old", "new"} {
			out, err := testutil.Run(append(os.Environ(), coldEnv+"="+way), "", self)
			if err != nil {
				b.Fatalf("%s: %v\n%s", way, err, out)
			}
			f := strings.Fields(out)
			if len(f) != 3 {
				b.Fatalf("%s printed %q", way, out)
			}
			load, _ := strconv.ParseFloat(f[0], 64)
			hash, _ := strconv.ParseFloat(f[1], 64)
			times[way+"-load"] = append(times[way+"-load"], load/1e3)
			times[way+"-hash"] = append(times[way+"-hash"], hash/1e3)
			sums[way] = f[2]
		}
	}
	if sums["old"] != sums["new"] {
		b.Fatalf("the fingerprints differ: old %s, new %s", sums["old"], sums["new"])
	}
	med := map[string]float64{}
	for k, v := range times {
		sort.Float64s(v)
		med[k] = v[len(v)/2]
		b.ReportMetric(med[k], k+"-µs")
	}
	b.ReportMetric(med["old-load"]/med["new-load"], "load-old/new")
	b.ReportMetric(med["old-hash"]/med["new-hash"], "hash-old/new")
}
