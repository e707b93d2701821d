package cmake

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// graphDir is a build directory whose graph builds libmlx.a and, through
// its subninja, sub/libx.a.
func graphDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), "build libmlx.a: phony\nsubninja sub.ninja\n")
	testutil.WriteFile(t, filepath.Join(dir, "sub.ninja"), "build sub/libx.a: phony\n")
	return dir
}

func builds(t *testing.T, g *GraphProducts, path string) bool {
	t.Helper()
	ok, err := g.Builds(path)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestGraphProductsRemembersWhatTheGraphBuilds(t *testing.T) {
	dir := graphDir(t)
	g := NewGraphProducts(dir)
	if !builds(t, g, filepath.Join(dir, "libmlx.a")) || !builds(t, g, "sub/libx.a") || builds(t, g, filepath.Join(dir, "old.a")) {
		t.Fatal("the graph's answers are wrong")
	}
	keys, products := readProductsMemo(t, dir)
	if want := []string{filepath.Join(dir, "libmlx.a"), filepath.Join(dir, "sub/libx.a")}; !slices.Equal(products, want) {
		t.Errorf("memo products %q, want %q (what was asked and built, sorted; no negative answer)", products, want)
	}
	if want := []string{memo.Of(filepath.Join(dir, "build.ninja")).Key(), memo.Of(filepath.Join(dir, "sub.ninja")).Key()}; !slices.Equal(keys, want) {
		t.Errorf("memo keys %q, want %q", keys, want)
	}
}

// The memo's answer is what a later plan gets, without the graph: a memo
// naming a file the graph does not build is believed while every manifest
// keeps its identity, and dropped when one changes.
func TestGraphProductsRecallsTheMemoWhileTheManifestsStand(t *testing.T) {
	dir := graphDir(t)
	stray := filepath.Join(dir, "stray.a")
	keys := []string{memo.Of(filepath.Join(dir, "build.ninja")).Key(), memo.Of(filepath.Join(dir, "sub.ninja")).Key()}
	rememberProducts(dir, keys, []string{stray})
	if !builds(t, NewGraphProducts(dir), stray) {
		t.Fatal("a standing memo was not recalled")
	}
	cases := map[string]func(){
		"an included manifest rewritten": func() {
			testutil.WriteFile(t, filepath.Join(dir, "sub.ninja"), "build sub/liby.a: phony\n")
		},
		"build.ninja rewritten": func() {
			testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), "build libmlx.a: phony\nsubninja sub.ninja\n\n")
		},
		"a torn memo": func() {
			testutil.WriteFile(t, filepath.Join(dir, productsMemoFile), "mlxbuild memo 4 "+productsMemoKind+"\nfile ")
		},
		"another directory's memo": func() {
			other := graphDir(t)
			rememberProducts(dir, []string{memo.Of(filepath.Join(other, "build.ninja")).Key()}, []string{stray})
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			rememberProducts(dir, []string{memo.Of(filepath.Join(dir, "build.ninja")).Key(), memo.Of(filepath.Join(dir, "sub.ninja")).Key()}, []string{stray})
			change()
			g := NewGraphProducts(dir)
			if builds(t, g, stray) {
				t.Error("a memo that no longer stands was believed")
			}
			if !builds(t, g, filepath.Join(dir, "libmlx.a")) {
				t.Error("the graph's own product was not found")
			}
		})
	}
}

// A product the memo does not name reads the graph, and the memo keeps
// both: the one recalled (still built) and the new one.
func TestGraphProductsAddsToTheMemo(t *testing.T) {
	dir := graphDir(t)
	if !builds(t, NewGraphProducts(dir), "libmlx.a") {
		t.Fatal("libmlx.a not built")
	}
	if !builds(t, NewGraphProducts(dir), "sub/libx.a") {
		t.Fatal("sub/libx.a not built")
	}
	_, products := readProductsMemo(t, dir)
	if want := []string{filepath.Join(dir, "libmlx.a"), filepath.Join(dir, "sub/libx.a")}; !slices.Equal(products, want) {
		t.Errorf("memo products %q, want %q", products, want)
	}
	if _, err := NewGraphProducts(t.TempDir()).Builds("libmlx.a"); err == nil {
		t.Error("a directory without build.ninja gave no error")
	}
}

// readProductsMemo is the manifests' identities and the products the
// memo in dir keeps.
func readProductsMemo(t *testing.T, dir string) (files, products []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, productsMemoFile))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := memo.Parse(productsMemoKind, data)
	if !ok {
		t.Fatalf("memo %q does not parse", data)
	}
	for _, kv := range e.Values {
		products = append(products, kv[1])
	}
	return e.Files, products
}

// BenchmarkGraphProducts times what a no-op's link plan asks after a
// configure that rebuilt nothing (every archive older than build.ninja),
// alternating in one loop: the memo's answer, and reading the graph as
// every such no-op did before. The graph is shaped like the real ROCm
// fork's (a quarter of a megabyte: 700 compile statements with their
// flags, under build.ninja and one include). Reported: each side's ms/op,
// memo/read and the graph's size.
//
//	go test ./internal/cmake -run '^$' -bench GraphProducts -benchtime 200x -count 3
func BenchmarkGraphProducts(b *testing.B) {
	dir := b.TempDir()
	var g strings.Builder
	g.WriteString("include rules.ninja\n")
	for i := 0; i < 700; i++ {
		fmt.Fprintf(&g, "build mlx/backend/rocm/CMakeFiles/mlx_rocm.dir/kernels/part%04d/unary_op_%d.hip.o: HIP_COMPILER__mlx_rocm_Release %s/tree/mlx/backend/rocm/kernels/part%04d/unary_op_%d.hip || cmake_object_order_depends_target_mlx\n"+
			"  FLAGS = -O3 -DNDEBUG -std=c++20 --offload-arch=gfx1151 -fPIC\n  OBJECT_DIR = mlx/backend/rocm/CMakeFiles/mlx_rocm.dir\n", i, i, dir, i, i)
	}
	g.WriteString("build libmlx.a: CXX_STATIC_LIBRARY_LINKER__mlx_Release mlx/CMakeFiles/mlx.dir/ops.cpp.o\n")
	g.WriteString("build mlx/backend/rocm/libmlx_rocm_kernels.a mlx/io/libgguflib.a: phony\n")
	testutil.WriteFile(b, filepath.Join(dir, "build.ninja"), g.String())
	testutil.WriteFile(b, filepath.Join(dir, "rules.ninja"), "rule HIP_COMPILER__mlx_rocm_Release\n  command = hipcc $FLAGS -c $in -o $out\n")
	archives := []string{"libmlx.a", "mlx/backend/rocm/libmlx_rocm_kernels.a", "mlx/io/libgguflib.a"}
	ask := func(g *GraphProducts) {
		for _, a := range archives {
			if ok, err := g.Builds(filepath.Join(dir, a)); err != nil || !ok {
				b.Fatalf("%s: %v %v", a, ok, err)
			}
		}
	}
	ask(NewGraphProducts(dir)) // the memo
	if recalledProducts(dir) == nil {
		b.Fatal("no memo")
	}
	var read, remembered time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		ask(NewGraphProducts(dir))
		remembered += time.Since(t)
		t = time.Now()
		outs, err := graphOutputs(dir, nil)
		for _, a := range archives {
			if err != nil || !outs[filepath.Join(dir, a)] {
				b.Fatalf("%s: %v", a, err)
			}
		}
		read += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(read.Microseconds())/1000/n, "read-ms/op")
	b.ReportMetric(float64(remembered.Microseconds())/1000/n, "memo-ms/op")
	b.ReportMetric(float64(remembered)/float64(read), "memo/read")
	b.ReportMetric(float64(g.Len())/1024, "graph-KiB")
}
