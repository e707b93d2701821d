package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// deviceConsumer uses the stand-in's mlx/device.h, whose defaulted
// operator== needs C++20 (as real MLX's does).
const deviceConsumer = `#include "mlx/c_api.h"
#include "mlx/device.h"
#include <cstdio>
int main() {
  using mlx::core::Device;
  if (!(mlx::core::default_device() == Device(Device::DeviceType::cpu))) {
    std::puts("default device is not the cpu");
    return 1;
  }
  const float a[2] = {1.0f, 2.0f};
  std::printf("sum %g\n", mlx_sum(a, 2));
  return 0;
}
`

// TestConsumerCompilesWithThePlansFlags: a consumer of a header that
// needs C++20 builds with exactly cxxflags.txt and ldflags.txt, because
// the plan's standard is the one the stand-in's CMake compiles the library
// with (CMAKE_CXX_STANDARD 20), not the spec's c++17, and link.json and
// cargo.txt say so. The same consumer with -std=c++17 does not compile, so
// the test proves the standard matters. A stand-in whose CMake sets no
// standard gets the spec's, and link.json says why.
func TestConsumerCompilesWithThePlansFlags(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	var stderr bytes.Buffer
	ctx := context.Background()
	sum, err := flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	src := filepath.Join(t.TempDir(), "consumer.cpp")
	testutil.WriteFile(t, src, deviceConsumer)
	cxxflags := linkArgs(t, filepath.Join(sum.Out, "cxxflags.txt"))
	if len(cxxflags) == 0 || cxxflags[0] != "-std=c++20" {
		t.Errorf("cxxflags.txt %q does not start with the stand-in's -std=c++20", cxxflags)
	}
	exe := filepath.Join(t.TempDir(), "consumer")
	args := append(append(append([]string(nil), cxxflags...), src), linkArgs(t, filepath.Join(sum.Out, "ldflags.txt"))...)
	testutil.RunOK(t, nil, "", "c++", append(args, "-o", exe)...)
	if out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", exe); out != "sum 3\n" {
		t.Errorf("consumer printed %q", out)
	}
	older := append([]string{"-std=c++17"}, args[1:]...)
	if out, err := testutil.Run(nil, "", "c++", append(older, "-o", exe+"17")...); err == nil {
		t.Errorf("the consumer compiled with -std=c++17 too: the header proves nothing\n%s", out)
	}

	plan, err := linkplan.Read(sum.Out)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Compile.Std != "c++20" || !strings.Contains(plan.Compile.StdFrom, "target mlx compiles as C++20") {
		t.Errorf("link.json compile: std %q from %q, want c++20 from CMake's target mlx", plan.Compile.Std, plan.Compile.StdFrom)
	}
	if cargo := plan.Cargo(); !strings.Contains(cargo, "cargo:cxx_std=c++20\n") {
		t.Errorf("cargo.txt lacks cargo:cxx_std=c++20:\n%s", cargo)
	}
	// plan says what the link plan says.
	var out bytes.Buffer
	if err := flow.Plan(ctx, flow.Options{Dir: p.Dir, Stdout: &out, Stderr: &bytes.Buffer{}}, "plan:cpu", "cpu"); err != nil {
		t.Fatalf("plan:cpu: %v", err)
	}
	if !strings.Contains(out.String(), "compile:   std c++20;") || !strings.Contains(out.String(), plan.Compile.StdFrom) {
		t.Errorf("plan:cpu does not say the link plan's std c++20 (%s):\n%s", plan.Compile.StdFrom, out.String())
	}

	// The build says nothing: the spec's standard, and why.
	cml := filepath.Join(p.Mlx, "CMakeLists.txt")
	data, err := os.ReadFile(cml)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "set(CMAKE_CXX_STANDARD 20)", "", 1)
	edited = strings.Replace(edited, "set(CMAKE_CXX_STANDARD_REQUIRED ON)", "", 1)
	if edited == string(data) {
		t.Fatal("the stand-in's CMakeLists.txt sets no CMAKE_CXX_STANDARD 20")
	}
	testutil.WriteFile(t, cml, edited)
	testutil.WriteFile(t, filepath.Join(p.Mlx, "mlx", "version.cpp"), "namespace mlx::core {\nconst char* version() { return \"0.1.0\"; }\nconst char* backend() { return \"cpu\"; }\nconst char* gpu_archs() { return \"\"; }\n}\n")
	if sum, err = flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu"); err != nil {
		t.Fatalf("build:cpu without a standard: %v\n%s", err, stderr.String())
	}
	if plan, err = linkplan.Read(sum.Out); err != nil {
		t.Fatal(err)
	}
	if plan.Compile.Std != "c++17" || !strings.Contains(plan.Compile.StdFrom, "configs/cpu.yaml: CMake sets no C++ standard for mlx") {
		t.Errorf("no standard in the build: std %q from %q, want the spec's c++17 and why", plan.Compile.Std, plan.Compile.StdFrom)
	}
}
