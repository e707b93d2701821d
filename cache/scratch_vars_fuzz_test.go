package cache

import (
	"regexp"
	"testing"
	"time"
)

// FuzzCompilerVars: the plain checks of compilerVar and compilerRootVar
// agree with the expressions they stand for on any name. Seeds
// (testdata/fuzz/FuzzCompilerVars) are CMake's own names and near misses.
func FuzzCompilerVars(f *testing.F) {
	compiler := regexp.MustCompile(`^CMAKE_[A-Z0-9]+_COMPILER$`)
	root := regexp.MustCompile(`^CMAKE_[A-Z0-9]+_COMPILER_[A-Z0-9_]*ROOT$`)
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := compilerVar(name), compiler.MatchString(name); got != want {
			t.Errorf("compilerVar(%q) = %v, the expression says %v", name, got, want)
		}
		if got, want := compilerRootVar(name), root.MatchString(name); got != want {
			t.Errorf("compilerRootVar(%q) = %v, the expression says %v", name, got, want)
		}
	})
}

// BenchmarkCompilerVars compares, for the defines a ROCm no-op ranks (the
// spec's, the architectures', the toolchain's: 40 names), what each
// process paid before (compiling both expressions once, then matching
// each name) with the plain checks. Reported: each side's µs/op and
// plain/regexp.
//
//	go test ./cache -run '^$' -bench CompilerVars -count 3
func BenchmarkCompilerVars(b *testing.B) {
	names := []string{"CMAKE_HIP_COMPILER", "CMAKE_HIP_COMPILER_ROCM_ROOT", "CMAKE_HIP_FLAGS", "CMAKE_HIP_ARCHITECTURES",
		"MLX_ROCM_ARCHITECTURES", "CMAKE_BUILD_TYPE", "CMAKE_CXX_COMPILER_LAUNCHER", "CMAKE_HIP_COMPILER_LAUNCHER", "CMAKE_PREFIX_PATH"}
	for len(names) < 40 {
		names = append(names, "MLX_BUILD_OPTION_"+string(rune('A'+len(names))))
	}
	var re, plain time.Duration
	n := 0
	for i := 0; i < b.N; i++ {
		t := time.Now()
		compiler := regexp.MustCompile(`^CMAKE_[A-Z0-9]+_COMPILER$`)
		root := regexp.MustCompile(`^CMAKE_[A-Z0-9]+_COMPILER_[A-Z0-9_]*ROOT$`)
		for _, name := range names {
			if compiler.MatchString(name) || root.MatchString(name) {
				n++
			}
		}
		re += time.Since(t)
		t = time.Now()
		for _, name := range names {
			if compilerVar(name) || compilerRootVar(name) {
				n--
			}
		}
		plain += time.Since(t)
	}
	if n != 0 {
		b.Fatalf("the two ways disagree (%d)", n)
	}
	b.ReportMetric(float64(re.Nanoseconds())/1000/float64(b.N), "regexp-µs/op")
	b.ReportMetric(float64(plain.Nanoseconds())/1000/float64(b.N), "plain-µs/op")
	b.ReportMetric(float64(plain)/float64(re), "plain/regexp")
}
