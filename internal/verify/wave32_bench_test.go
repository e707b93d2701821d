package verify

import (
	"os"
	"testing"
)

// BenchmarkStringUnits compares reading JIT kernels out of a file's string
// literals with and without the contents-first filter, side by side.
// MLXBUILD_BENCH_SOURCE names a large source (the fork's
// mlx/backend/rocm/quantized/qmm.hip, about 5,600 lines with hundreds of
// error-message strings); without it the JIT fixture is used.
func BenchmarkStringUnits(b *testing.B) {
	path := os.Getenv("MLXBUILD_BENCH_SOURCE")
	if path == "" {
		path = "testdata/wave32/clean/jit_kernels.cpp"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	keep := func(u []byte, _ int) bool { return laneOpRE.Match(u) || warpArithRE.Match(u) }
	want := func(c []byte) bool { return laneOpRE.Match(c) || warpArithRE.Match(c) }
	b.Run("copy-each-literal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			stringUnits(src, nil, keep)
		}
	})
	b.Run("contents-first", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			stringUnits(src, want, keep)
		}
	})
}
