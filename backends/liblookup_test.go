package backends

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	imemo "github.com/mlxbuild/mlxbuild/internal/memo"
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

	l := NewLibLookup([]string{fixed}, globs, "")
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
	run1 := NewLibLookup(nil, nil, "")
	if !run1.inDirs([]string{dir}, "hiprand") {
		t.Fatal("present library not found")
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	if !run1.inDirs([]string{dir}, "hiprand") {
		t.Error("one run's answer changed within the run")
	}
	if NewLibLookup(nil, nil, "").inDirs([]string{dir}, "hiprand") {
		t.Error("the next run does not see the removed library")
	}
	testutil.WriteFile(t, filepath.Join(dir, "libhiprand.a"), "")
	if !NewLibLookup(nil, nil, "").inDirs([]string{dir}, "hiprand") {
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
	in := LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc, Libs: NewLibLookup(fixed, globs, "")}
	_, err := PlanLink(s, in)
	var ml *MissingLibraryError
	if !errors.As(err, &ml) || len(ml.Lines) != 1 || !strings.Contains(ml.Lines[0], "libstdc++.so: not found") {
		t.Fatalf("libstdc++ missing: want one missing line, got %v", err)
	}
	testutil.WriteFile(t, filepath.Join(sys, "gcc", "x86_64-linux-gnu", "12", "libstdc++.so"), "")
	in.Libs = NewLibLookup(fixed, globs, "")
	p, err := PlanLink(s, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p.System); got != 3 {
		t.Errorf("system libraries %v, want stdc++, openblas, lapack", p.System)
	}
}

// TestLibLookupHints checks the hints through runs on real directories:
// the second run finds libstdc++ where the first did without listing a
// pattern; a library gone from its hinted directory is looked for
// everywhere again (and found elsewhere, or missing); a hint to a
// directory the lookup does not search is not followed.
func TestLibLookupHints(t *testing.T) {
	root := t.TempDir()
	fixed := filepath.Join(root, "usr", "lib")
	gcc := filepath.Join(root, "gcc", "x86_64", "12")
	testutil.WriteFile(t, filepath.Join(gcc, "libstdc++.so"), "")
	if err := os.MkdirAll(fixed, 0o755); err != nil {
		t.Fatal(err)
	}
	globs := []string{filepath.Join(root, "gcc", "*", "*"), filepath.Join(root, "multi", "*")}
	cacheDir := cacheRoot(t)
	run := func() *LibLookup { return NewLibLookup([]string{fixed}, globs, cacheDir) }

	first := run()
	if !first.inSystem(nil, "stdc++") || len(first.listed) != 1 {
		t.Fatalf("first run: listed %d patterns", len(first.listed))
	}
	first.SaveHints()
	second := run()
	if !second.inSystem(nil, "stdc++") || len(second.listed) != 0 {
		t.Fatalf("second run: the hint was not used (listed %d patterns)", len(second.listed))
	}
	hints, err := os.ReadFile(filepath.Join(cacheDir, "libdirs.memo"))
	if err != nil {
		t.Fatal(err)
	}
	second.SaveHints()
	if again, _ := os.ReadFile(filepath.Join(cacheDir, "libdirs.memo")); string(again) != string(hints) {
		t.Errorf("unchanged hints were rewritten")
	}

	// Moved to a fixed directory: found there, and the hint follows.
	if err := os.Rename(filepath.Join(gcc, "libstdc++.so"), filepath.Join(fixed, "libstdc++.so")); err != nil {
		t.Fatal(err)
	}
	third := run()
	if !third.inSystem(nil, "stdc++") {
		t.Fatal("a library moved from its hinted directory was not found")
	}
	third.SaveHints()
	if h := run().hint("stdc++"); h != fixed {
		t.Errorf("hint after the move: %q, want %q", h, fixed)
	}

	// Gone: missing, whatever the hint says.
	if err := os.Remove(filepath.Join(fixed, "libstdc++.so")); err != nil {
		t.Fatal(err)
	}
	if run().inSystem(nil, "stdc++") {
		t.Fatal("a removed library was found")
	}

	// A hint to a directory outside the lookup's list, which holds the
	// library, is not followed; nor is an unclean path a pattern matches.
	elsewhere := filepath.Join(root, "elsewhere")
	testutil.WriteFile(t, filepath.Join(elsewhere, "libstdc++.so"), "")
	testutil.WriteFile(t, filepath.Join(root, "libstdc++.so"), "") // in root/multi/.., which the pattern root/multi/* matches
	if err := os.MkdirAll(filepath.Join(root, "multi"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{elsewhere, root + "/multi/.."} {
		writeFile(t, filepath.Join(cacheDir, "libdirs.memo"), string(imemo.Format(libHintsKind, imemo.Entry{Values: [][2]string{{"stdc++", dir}}})), 0o644)
		l := run()
		if l.hint("stdc++") != dir {
			t.Fatalf("the hand-written hint was not read: %q", l.hint("stdc++"))
		}
		if l.inSystem(nil, "stdc++") {
			t.Errorf("the hint to %s was followed", dir)
		}
	}
}
