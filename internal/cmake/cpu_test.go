package cmake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuildCPU configures and builds the pristine example as is (no overlay)
// for the CPU, links the C++ consumer against it and runs it, and checks that
// a second build is a Ninja no-op and that the pristine source stayed as it was.
func TestBuildCPU(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	ctx := context.Background()
	src, _ := filepath.Abs(filepath.Join(exampleDir, "mlx"))
	before := treeHash(t, src)
	build := filepath.Join(t.TempDir(), "build")

	var cfgLog bytes.Buffer
	if err := Configure(ctx, ConfigureOptions{Source: src, Build: build, Defines: map[string]string{"MLX_BUILD_ROCM": "OFF"}, Log: &cfgLog}); err != nil {
		t.Fatalf("%v\n%s", err, cfgLog.String())
	}
	var prog bytes.Buffer
	res, err := Build(ctx, BuildOptions{Dir: build, Jobs: 2, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps < 6 || res.Steps != len(res.Ran) {
		t.Errorf("first build ran %d steps (%v), want every compile and the archive", res.Steps, stepsOf(res))
	}
	// Plain (non-TTY) progress: one "[N/M] KIND path" line per step.
	lines := strings.Split(strings.TrimSpace(prog.String()), "\n")
	lineRe := regexp.MustCompile(`^\[\d+/\d+\] (CXX mlx/\S+\.cpp|LINK libmlx\.a)$`)
	for _, l := range lines {
		if !lineRe.MatchString(l) {
			t.Errorf("progress line %q", l)
		}
	}
	if len(lines) != res.Steps || !strings.Contains(prog.String(), "] CXX mlx/c_api.cpp\n") {
		t.Errorf("progress:\n%s", prog.String())
	}
	if _, err := os.Stat(filepath.Join(build, "libmlx.a")); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(res.LogPath)
	if err != nil || !bytes.Contains(log, []byte("Building CXX object")) {
		t.Errorf("log %s: %v", res.LogPath, err)
	}
	// The CPU build compiles no ROCm or CUDA file.
	cc, err := os.ReadFile(filepath.Join(build, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"backend/rocm", ".hip", "backend/cuda", ".cu\""} {
		if bytes.Contains(cc, []byte(bad)) || bytes.Contains(log, []byte(bad)) {
			t.Errorf("CPU build mentions %q", bad)
		}
	}

	again, err := Build(ctx, BuildOptions{Dir: build, Progress: &prog})
	if err != nil {
		t.Fatal(err)
	}
	if again.Steps != 0 || len(again.Ran) != 0 {
		t.Errorf("no-op build ran %v", stepsOf(again))
	}

	exe := filepath.Join(t.TempDir(), "consumer")
	testutil.RunOK(t, nil, "", "c++", "-std=c++17", "-I", src, filepath.Join(exampleDir, "..", "cxx-consumer", "main.cpp"), "-L", build, "-lmlx", "-o", exe)
	out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", exe)
	if !strings.Contains(out, "backend=cpu archs=\n") || !strings.Contains(out, "mlx_sum = 110") {
		t.Errorf("consumer output:\n%s", out)
	}
	if after := treeHash(t, src); after != before {
		t.Error("building wrote into the pristine source")
	}
}

// TestConfigureErrorNamesFileAndLine configures the pristine source with
// MLX_BUILD_ROCM=ON: without the overlay the example's CMakeLists refuses,
// and the error must carry CMake's file:line and message.
func TestConfigureErrorNamesFileAndLine(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja")
	src, _ := filepath.Abs(filepath.Join(exampleDir, "mlx"))
	err := Configure(context.Background(), ConfigureOptions{
		Source:  src,
		Build:   filepath.Join(t.TempDir(), "build"),
		Defines: map[string]string{"MLX_BUILD_ROCM": "ON", "CMAKE_HIP_ARCHITECTURES": "gfx1030"},
	})
	if err == nil {
		t.Fatal("want a configure error")
	}
	re := regexp.MustCompile(regexp.QuoteMeta(filepath.Join(src, "CMakeLists.txt")) + `:\d+: MLX_BUILD_ROCM=ON but mlx/backend/rocm is missing`)
	if !re.MatchString(err.Error()) {
		t.Errorf("error %q does not match %s", err, re)
	}
}

func TestBuildUnconfigured(t *testing.T) {
	_, err := Build(context.Background(), BuildOptions{Dir: t.TempDir()})
	var be *BuildError
	if err == nil || errors.As(err, &be) || !strings.Contains(err.Error(), "configure it first") {
		t.Errorf("Build of an empty directory: %v", err)
	}
}
