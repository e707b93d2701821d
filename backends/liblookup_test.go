package backends

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestLibLookupListsPatternsLate checks the system check on real
// directories: a library in a fixed directory lists no pattern, one only in
// the second pattern's directory lists the first two, and one nowhere lists
// them all and is missing.
func TestLibLookupListsPatternsLate(t *testing.T) {
	root := t.TempDir()
	fixed, search := filepath.Join(root, "usr", "lib"), filepath.Join(root, "tool", "lib")
	testutil.WriteFile(t, filepath.Join(fixed, "libopenblas.so"), "")
	testutil.WriteFile(t, filepath.Join(root, "gcc", "x86_64", "12", "libstdc++.so"), "")
	testutil.WriteFile(t, filepath.Join(root, "multi", "x86_64-linux-gnu", "liblapack.so"), "")
	testutil.WriteFile(t, filepath.Join(search, "libamdhip64.so"), "")
	globs := []string{filepath.Join(root, "gcc", "*", "*"), filepath.Join(root, "multi", "*-linux-gnu")}

	l := NewLibLookup([]string{fixed}, globs)
	if !l.inSystem([]string{search}, "amdhip64") || !l.inSystem([]string{search}, "openblas") || len(l.listed) != 0 {
		t.Fatalf("libraries in search and fixed directories: listed %d patterns", len(l.listed))
	}
	if !l.inSystem([]string{search}, "stdc++") || len(l.listed) != 1 {
		t.Fatalf("libstdc++ in the first pattern's directory: listed %d patterns", len(l.listed))
	}
	if !l.inSystem([]string{search}, "lapack") || len(l.listed) != 2 {
		t.Fatalf("liblapack in the second pattern's directory: listed %d patterns", len(l.listed))
	}
	if l.inSystem([]string{search}, "absent") {
		t.Fatal("a library that is nowhere was found")
	}
}

// TestLibLookupPerRun checks that a run's lookup keeps its answers (the
// two link plans of one build agree) and that the next run's lookup sees
// a library removed or added since.
func TestLibLookupPerRun(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libhiprand.so")
	testutil.WriteFile(t, lib, "")
	run1 := NewLibLookup(nil, nil)
	if !run1.inDirs([]string{dir}, "hiprand") {
		t.Fatal("present library not found")
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	if !run1.inDirs([]string{dir}, "hiprand") {
		t.Error("one run's answer changed within the run")
	}
	if NewLibLookup(nil, nil).inDirs([]string{dir}, "hiprand") {
		t.Error("the next run does not see the removed library")
	}
	testutil.WriteFile(t, filepath.Join(dir, "libhiprand.a"), "")
	if !NewLibLookup(nil, nil).inDirs([]string{dir}, "hiprand") {
		t.Error("the next run does not see the added archive")
	}
	var none *LibLookup
	if !none.inDirs([]string{dir}, "hiprand") || none.inDirs([]string{dir}, "rocblas") {
		t.Error("a nil lookup does not look")
	}
}

// TestLinkPlanSystemLibraries makes the plan with a lookup whose system
// directories hold some of the spec's system libraries: the missing one is
// named, and once it is installed in a pattern's directory a new run's plan
// lists every one.
func TestLinkPlanSystemLibraries(t *testing.T) {
	s, _ := configs.Builtin("rocm")
	build, tc := fakeROCm(t, "amdhip64", "rocblas", "hiprand", "hipblaslt", "hipfft")
	sys := t.TempDir()
	testutil.WriteFile(t, filepath.Join(sys, "lib", "libopenblas.so"), "")
	testutil.WriteFile(t, filepath.Join(sys, "lib", "liblapack.so"), "")
	fixed, globs := []string{filepath.Join(sys, "lib")}, []string{filepath.Join(sys, "gcc", "*", "*")}
	in := LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc, Libs: NewLibLookup(fixed, globs)}
	_, err := PlanLink(s, in)
	var ml *MissingLibraryError
	if !errors.As(err, &ml) || len(ml.Lines) != 1 || !strings.Contains(ml.Lines[0], "libstdc++.so: not found") {
		t.Fatalf("libstdc++ missing: want one missing line, got %v", err)
	}
	testutil.WriteFile(t, filepath.Join(sys, "gcc", "x86_64-linux-gnu", "12", "libstdc++.so"), "")
	in.Libs = NewLibLookup(fixed, globs)
	p, err := PlanLink(s, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.System); got != 3 {
		t.Errorf("system libraries %v, want stdc++, openblas, lapack", p.System)
	}
}
