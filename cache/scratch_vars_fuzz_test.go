package cache

import (
	"regexp"
	"testing"
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
