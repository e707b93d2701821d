package cmake

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// coldManifest is shaped like a cold MLX build: many short compiles, one
// very long one written last, all archived into a library that an
// executable links; a top-level variable sits between two runs of build
// statements.
const coldManifest = `# header
ninja_required_version = 1.5
rule cc
  command = touch $out
  description = CC $out
rule ar
  command = touch $out
build a.o: cc a.c
build b.o: cc b.c
build c.o: cc c.c
build gen$ dir/h.h: cc gen.in
build long.o: cc long.c || gen$ dir/h.h
build lib.a: ar a.o b.o c.o long.o
where = bin
build $where/app: ar lib.a
build all: phony $where/app
default all
`

func buildOutputs(data []byte) []string {
	var outs []string
	for _, it := range splitManifest(data) {
		if it.build {
			outs = append(outs, it.outs...)
		}
	}
	return outs
}

func TestOrderManifestStartsTheLongestChainFirst(t *testing.T) {
	d := Durations{"a.o": time.Second, "b.o": 2 * time.Second, "c.o": time.Second, "long.o": 300 * time.Second, "gen dir/h.h": time.Second, "lib.a": time.Second}
	got := orderManifest([]byte(coldManifest), d)
	// gen dir/h.h is read by long.o: its chain is the longest of all.
	want := []string{"gen dir/h.h", "long.o", "b.o", "a.o", "c.o", "lib.a", "all"} // $where/app: no path before it is evaluated
	if outs := buildOutputs(got); !slices.Equal(outs, want) {
		t.Errorf("build order = %q, want %q\n%s", outs, want, got)
	}
	// The same statements, byte for byte; every other one where it was.
	sorted := func(data []byte) []string {
		var s []string
		for _, it := range splitManifest(data) {
			s = append(s, string(it.raw))
		}
		slices.Sort(s)
		return s
	}
	if !slices.Equal(sorted(got), sorted([]byte(coldManifest))) {
		t.Errorf("the ordered copy's statements differ:\n%s", got)
	}
	others := func(data []byte) []string {
		var s []string
		for _, l := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(l, "build ") && !strings.HasPrefix(l, "  ") {
				s = append(s, l)
			}
		}
		return s
	}
	if !slices.Equal(others(got), others([]byte(coldManifest))) {
		t.Errorf("statements other than builds moved:\n%s", got)
	}
}

func TestOrderManifestWithoutDurationsKeepsTheOrder(t *testing.T) {
	if got := orderManifest([]byte(coldManifest), nil); string(got) != coldManifest {
		t.Errorf("no durations changed the manifest:\n%s", got)
	}
}

// writeColdTree makes a build directory Build can run: the manifest above
// and the sources its edges read.
func writeColdTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"a.c", "b.c", "c.c", "long.c", "gen.in"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "build.ninja"), []byte(coldManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// With one job Ninja runs edges one after the other in the order it
// starts them: the long compile (after the header it waits on) goes first
// when its duration is known, last when not. Nothing is timed.
func TestBuildStartsTheLongEdgeFirst(t *testing.T) {
	testutil.NeedTools(t, "ninja")
	order := func(d Durations) ([]string, BuildResult) {
		dir := writeColdTree(t)
		res, err := Build(t.Context(), BuildOptions{Dir: dir, Jobs: 1, Durations: d})
		if err != nil {
			t.Fatal(err)
		}
		var outs []string
		for _, s := range res.Ran {
			outs = append(outs, strings.TrimPrefix(s.Display, "CC "))
		}
		return outs, res
	}
	plain, res := order(nil)
	if res.Ordered || plain[4] != "long.o" {
		t.Fatalf("without durations: ran %q (ordered %v), want long.o fifth, as written", plain, res.Ordered)
	}
	ordered, res := order(Durations{"long.o": 300 * time.Second, "a.o": time.Second, "b.o": time.Second, "c.o": time.Second})
	// Ninja quotes $out for the shell in the description.
	if !res.Ordered || !slices.Equal(ordered[:2], []string{"'gen dir/h.h'", "long.o"}) {
		t.Errorf("with durations: ran %q (ordered %v), want the header then long.o first", ordered, res.Ordered)
	}
	// What is built is the same.
	slices.Sort(plain)
	slices.Sort(ordered)
	if !slices.Equal(plain, ordered) {
		t.Errorf("the ordered build ran %q, the plain one %q", ordered, plain)
	}
	if res.Bound.Jobs != 1 || res.Bound.Lower() < 0 {
		t.Errorf("bound = %+v, want one job's", res.Bound)
	}
}

func TestExpectedChainsNameWhereTheTimeGoes(t *testing.T) {
	dir := writeColdTree(t)
	d := Durations{"gen dir/h.h": time.Second, "long.o": 300 * time.Second, "a.o": 2 * time.Second, "b.o": time.Second, "c.o": time.Second, "lib.a": 3 * time.Second}
	got := ExpectedChains(dir, d, 2)
	if len(got) != 2 {
		t.Fatalf("chains = %+v, want 2", got)
	}
	first := got[0]
	// $where/app is not a path before evaluation: it takes the median, 2s.
	want := []ChainEdge{{"gen dir/h.h", time.Second}, {"long.o", 300 * time.Second}, {"lib.a", 3 * time.Second}, {"$where/app", 2 * time.Second}}
	if first.Took != 306*time.Second || !slices.Equal(first.Edges, want) {
		t.Errorf("longest chain = %+v, want 306s through %+v", first, want)
	}
	if got[1].Edges[0].Output != "a.o" || got[1].Took != 7*time.Second {
		t.Errorf("second chain = %+v, want a.o's, 7s", got[1])
	}
	if ExpectedChains(dir, nil, 3) != nil {
		t.Error("chains without durations")
	}
}
