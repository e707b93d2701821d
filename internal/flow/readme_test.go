package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// repoRoot is the repository's root, relative to this package: its
// mlxbuild.yaml builds the bundled example, as the README shows.
const repoRoot = "../.."

// TestREADMEBuildOutput keeps the README's "What a build looks like" true:
// build:rocm of the bundled example into a fresh cache, with the default
// architecture list (no GPU, no MLX_ROCM_ARCHITECTURES) and 2 jobs as the
// README shows, prints the README's first block, and the second run its
// second block, times, absolute paths and the order of Ninja's parallel
// steps aside. The same build (HIP compiles are the slow part) checks that
// cxxflags.txt alone compiles a consumer that includes HIP's headers next
// to MLX's.
func TestREADMEBuildOutput(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "g++")
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	first, second := readmeBuildBlocks(t, string(readme))
	repo, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache")
	t.Setenv("MLXBUILD_CACHE", cache)
	t.Setenv("MLXBUILD_JOBS", "2")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "")
	t.Setenv("MLXBUILD_KFD_TOPOLOGY", t.TempDir())
	t.Setenv("NO_COLOR", "1")
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "MLXBUILD_LAUNCHER", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	mask := func(out string) string {
		return maskREADME(strings.NewReplacer(cache, "<cache>", repo, "<repo>").Replace(out))
	}
	build := func() string {
		var stderr bytes.Buffer
		if _, err := flow.Build(context.Background(), flow.Options{Dir: repo, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "rocm"); err != nil {
			t.Fatalf("build:rocm: %v\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	for i, want := range []string{first, second} {
		got := build()
		if mask(got) != want {
			t.Errorf("run %d of build:rocm printed:\n%s\nthe README shows (masked):\n%s\nupdate the README's block from the output", i+1, got, want)
		}
	}

	t.Run("a HIP consumer compiles with cxxflags.txt alone", func(t *testing.T) {
		src := filepath.Join(t.TempDir(), "consumer.cpp")
		testutil.WriteFile(t, src, "#include <hip/hip_runtime.h>\n#include \"mlx/c_api.h\"\n"+
			"#ifndef MLXBUILD_BACKEND_ROCM\n#error the ROCm backend's macro is missing\n#endif\n"+
			"int consumer() { int n = 0; return hipGetDeviceCount(&n) == hipSuccess ? n : -1; }\n")
		flags := filepath.Join(cache, "rocm", "out", "cxxflags.txt")
		testutil.RunOK(t, nil, "", "g++", "@"+flags, "-c", src, "-o", filepath.Join(t.TempDir(), "consumer.o"))
	})
}

// readmeBuildBlocks are the README's two runs of build:rocm under "What a
// build looks like", each the output between its command and the next
// command or the block's end, masked (maskREADME) with the clone's paths
// named <repo> and <cache>.
func readmeBuildBlocks(t *testing.T, readme string) (first, second string) {
	t.Helper()
	_, section, ok := strings.Cut(readme, "## What a build looks like\n")
	if !ok {
		t.Fatal(`README.md has no "## What a build looks like" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return readmeRuns(t, section)
}

// readmeRuns splits the section's code blocks into the outputs of its
// `$ go run mage.go build:rocm` commands; it wants exactly two.
func readmeRuns(t *testing.T, section string) (string, string) {
	t.Helper()
	var runs []string
	for _, block := range regexp.MustCompile("(?s)```\n(.*?)```\n").FindAllStringSubmatch(section, -1) {
		in := false
		for _, line := range strings.SplitAfter(block[1], "\n") {
			switch {
			case strings.HasPrefix(line, "$ go run mage.go build:rocm"):
				runs, in = append(runs, ""), true
			case strings.HasPrefix(line, "$ "):
				in = false
			case in:
				runs[len(runs)-1] += line
			}
		}
	}
	if len(runs) != 2 {
		t.Fatalf("README.md shows %d runs of build:rocm under \"What a build looks like\", want 2", len(runs))
	}
	paths := strings.NewReplacer("/work/main/target/mlxbuild", "<cache>", "/work/main", "<repo>")
	return maskREADME(paths.Replace(runs[0])), maskREADME(paths.Replace(runs[1]))
}

var (
	durationRe = regexp.MustCompile(`\b(?:[0-9]+(?:\.[0-9]+)?(?:h|ms|µs|us|ns|m|s))+`)
	// ratioRe: the bound line's ratio, and which bound it is, move with
	// the durations.
	ratioRe   = regexp.MustCompile(`\b[0-9]+\.[0-9]+x\b|\((?:longest chain|cpu sum / [0-9]+ jobs)\)`)
	ninjaStep = regexp.MustCompile(`^\[[0-9]+/([0-9]+)\] `)
)

// maskREADME sets aside what differs between two runs of the same build:
// durations, and the order of Ninja's steps (two jobs finish in either
// order; each step's counter goes with the order, so it is dropped and the
// run of steps sorted).
func maskREADME(out string) string {
	lines := strings.Split(ratioRe.ReplaceAllString(durationRe.ReplaceAllString(out, "<t>"), "<r>"), "\n")
	for i := 0; i < len(lines); {
		if !ninjaStep.MatchString(lines[i]) {
			i++
			continue
		}
		j := i
		for j < len(lines) && ninjaStep.MatchString(lines[j]) {
			lines[j] = ninjaStep.ReplaceAllString(lines[j], "[_/$1] ")
			j++
		}
		slices.Sort(lines[i:j])
		i = j
	}
	return strings.Join(lines, "\n")
}
