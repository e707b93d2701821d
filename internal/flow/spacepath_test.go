package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestLinkPlanServesAProjectPathWithASpace builds the example in
// "My Projects/engine", its cache beside it, then compiles and links the
// C++ consumer the documented way, `g++ @cxxflags.txt main.cpp
// @ldflags.txt`, from the project's directory; the program runs.
func TestLinkPlanServesAProjectPathWithASpace(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "g++")
	p := newProjectAt(t, filepath.Join(t.TempDir(), "My Projects"), "")
	var stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	cxx, err := os.ReadFile(filepath.Join(sum.Out, "cxxflags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cxx), `My\ Projects`) {
		t.Errorf("cxxflags.txt does not escape the blank of My Projects: %s", cxx)
	}
	exe := filepath.Join(p.Dir, "consumer")
	main, err := filepath.Abs(filepath.Join(examplesDir, "cxx-consumer", "main.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.RunOK(t, nil, p.Dir, "g++", "@"+filepath.Join(sum.Out, "cxxflags.txt"), main, "@"+filepath.Join(sum.Out, "ldflags.txt"), "-o", exe)
	testutil.RunOK(t, nil, p.Dir, exe)
}
