package cmake

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// coldShape is a graph shaped like a cold MLX build (issue 46): many short
// compiles, a few very long ones written three quarters of the way down
// the manifest (where CMake happened to put MLX's longest CUDA compile),
// all archived into a library an executable links. The compiles sleep, so
// what is measured is Ninja's order, not the CPU the machine has left.
type coldShape struct {
	short, long       int
	shortDur, longDur time.Duration
	jobs              int
}

func (s coldShape) manifest() (string, Durations) {
	var m strings.Builder
	d := Durations{}
	m.WriteString("rule cc\n  command = sleep $secs && touch $out\n  description = CC $out\nrule ar\n  command = sleep 0.2 && touch $out\n")
	edge := func(name string, took time.Duration) {
		fmt.Fprintf(&m, "build %s: cc\n  secs = %.3f\n", name, took.Seconds())
		d[name] = took
	}
	var objs []string
	at := s.short * 3 / 4
	for i := range s.short {
		if i == at {
			for j := range s.long {
				edge(fmt.Sprintf("long%d.o", j), s.longDur)
				objs = append(objs, fmt.Sprintf("long%d.o", j))
			}
		}
		edge(fmt.Sprintf("s%03d.o", i), s.shortDur)
		objs = append(objs, fmt.Sprintf("s%03d.o", i))
	}
	fmt.Fprintf(&m, "build lib.a: ar %s\nbuild app: ar lib.a\nbuild all: phony app\ndefault all\n", strings.Join(objs, " "))
	d["lib.a"], d["app"] = 200*time.Millisecond, 200*time.Millisecond
	return m.String(), d
}

// coldRun builds the shape in a new directory one way and returns its
// bound, with the wall time as measured around the Ninja run(s).
func coldRun(b *testing.B, s coldShape, how string) Bound {
	dir := b.TempDir()
	text, d := s.manifest()
	if err := os.WriteFile(filepath.Join(dir, "build.ninja"), []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	ninja := func(args ...string) {
		args = append([]string{"-C", dir, "-j", fmt.Sprint(s.jobs)}, args...)
		if _, err := proc.Run(context.Background(), proc.Cmd{Path: "ninja", Args: args}); err != nil {
			b.Fatalf("ninja %v: %v", args, err)
		}
	}
	var longs []string
	for j := range s.long {
		longs = append(longs, fmt.Sprintf("long%d.o", j))
	}
	t := time.Now()
	switch how {
	case "plain", "ordered":
		o := BuildOptions{Dir: dir, Jobs: s.jobs}
		if how == "ordered" {
			o.Durations = d
		}
		if _, err := Build(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	case "cmdline": // the long outputs first on the command line
		ninja(append(longs, "all")...)
	case "seededlog": // a .ninja_log that knows every edge's time
		var log strings.Builder
		log.WriteString("# ninja log v5\n")
		for out, took := range d {
			fmt.Fprintf(&log, "0\t%d\t0\t%s\t0\n", took.Milliseconds(), out)
		}
		if err := os.WriteFile(filepath.Join(dir, ".ninja_log"), []byte(log.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		t = time.Now()
		ninja()
	case "twophase": // the long edges alone, then the rest
		ninja(longs...)
		ninja()
	}
	wall := time.Since(t)
	entries := logSince(dir, 0)
	if how == "seededlog" {
		entries = entries[len(d):]
	}
	bound := boundOf(entries, splitManifest([]byte(text)), s.jobs)
	bound.Wall = wall
	return bound
}

// BenchmarkColdOrder builds the cold shape each way, one after another in
// each round so load hits all alike, and reports each way's wall time over
// its own lower bound, max(longest chain, edges' time / jobs), from its
// own .ninja_log. Not a unit test: run it by hand.
//
//	go test ./internal/cmake -run '^$' -bench ColdOrder -benchtime 2x
func BenchmarkColdOrder(b *testing.B) {
	testutil.NeedTools(b, "ninja")
	for _, s := range []coldShape{
		{short: 120, long: 2, shortDur: 300 * time.Millisecond, longDur: 6 * time.Second, jobs: 8},
		{short: 60, long: 2, shortDur: 300 * time.Millisecond, longDur: 6 * time.Second, jobs: 2},
	} {
		b.Run(fmt.Sprintf("j%d", s.jobs), func(b *testing.B) {
			ways := []string{"plain", "ordered", "cmdline", "seededlog", "twophase"}
			sum := map[string]float64{}
			for range b.N {
				for _, how := range ways {
					bd := coldRun(b, s, how)
					b.Logf("%-9s wall %6.2fs  %s", how, bd.Wall.Seconds(), bd)
					sum[how] += bd.Ratio()
				}
			}
			for _, how := range ways {
				b.ReportMetric(sum[how]/float64(b.N), how+"-x-bound")
			}
		})
	}
}
