package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// forkStyleKernels replaces the example overlay's HIP library with the ROCm
// fork's build model: one add_custom_command per .hip file, depending on that
// file alone (no DEPFILE, no HIP language target), and an archive made from
// the objects by another custom command.
const forkStyleKernels = `# The ROCm fork's model: CMake never sees the headers behind a HIP compile.
set(HIP_SOURCES device.hip binary.hip reduce.hip)
set(HIP_ARCH_FLAGS "")
foreach(arch ${CMAKE_HIP_ARCHITECTURES})
  list(APPEND HIP_ARCH_FLAGS --offload-arch=${arch})
endforeach()
separate_arguments(HIP_EXTRA_FLAGS UNIX_COMMAND "${CMAKE_HIP_FLAGS}")
set(HIP_OBJ_DIR "${CMAKE_CURRENT_BINARY_DIR}/hip_objs")
file(MAKE_DIRECTORY ${HIP_OBJ_DIR})
set(HIP_OBJECTS "")
foreach(name ${HIP_SOURCES})
  set(hip_src ${CMAKE_CURRENT_SOURCE_DIR}/${name})
  set(hip_obj ${HIP_OBJ_DIR}/${name}.o)
  add_custom_command(
    OUTPUT ${hip_obj}
    COMMAND ${CMAKE_HIP_COMPILER} -x hip -c ${hip_src} -o ${hip_obj} -fPIC -fno-gpu-rdc
      ${HIP_ARCH_FLAGS} ${HIP_EXTRA_FLAGS} -I${PROJECT_SOURCE_DIR} -std=c++17
    DEPENDS ${hip_src}
    COMMENT "Compiling HIP source ${hip_src}"
    VERBATIM)
  list(APPEND HIP_OBJECTS ${hip_obj})
endforeach()
set(HIP_STATIC_LIB ${CMAKE_BINARY_DIR}/libmlx_rocm_kernels.a)
add_custom_command(
  OUTPUT ${HIP_STATIC_LIB}
  COMMAND ${CMAKE_AR} rcs ${HIP_STATIC_LIB} ${HIP_OBJECTS}
  DEPENDS ${HIP_OBJECTS}
  VERBATIM)
add_custom_target(mlx_rocm_kernels_lib ALL DEPENDS ${HIP_STATIC_LIB})
add_dependencies(mlx mlx_rocm_kernels_lib)
`

// forkStyleProject is the example with forkStyleKernels as its ROCm
// overlay's CMakeLists.txt, stub libraries for what Debian's ROCm lacks, and
// gfx1030; run runs build:rocm on it and returns what it printed.
func forkStyleProject(t *testing.T) (*project, func(t *testing.T) string) {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "gcc")
	fake := filepath.Join(t.TempDir(), "fakerocm")
	buildStubs(t, fake)
	p := newProject(t, "link:\n  remove: [hipfft]\n  search: ["+filepath.Join(fake, "lib")+"]\n")
	testutil.WriteFile(t, filepath.Join(p.Rocm, "mlx/backend/rocm/CMakeLists.txt"), forkStyleKernels)
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	return p, func(t *testing.T) string {
		t.Helper()
		var out bytes.Buffer
		if _, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &out, Stderr: &out}, "rocm"); err != nil {
			t.Fatalf("build:rocm: %v\n%s", err, out.String())
		}
		return out.String()
	}
}

// ninjaLog reads the build directory's .ninja_log: each HIP object and the
// output mtime Ninja logged for its last run. CMake names each custom command
// output twice (relative and absolute) and recompacts the log when it
// regenerates, so entries are keyed by object name, not counted by line.
func ninjaLog(t *testing.T, build string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(build, ".ninja_log"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for l := range strings.Lines(string(data)) {
		if f := strings.Split(strings.TrimSuffix(l, "\n"), "\t"); len(f) == 5 && strings.Contains(f[3], "hip_objs/") {
			out[filepath.Base(f[3])] = f[2]
		}
	}
	return out
}

// rerun lists the objects whose logged run differs between two logs.
func rerun(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestHeaderEditsRebuildCustomCommandHIPObjects builds the example with the
// fork's custom-command HIP model through build:rocm and, after each kind of
// edit, reads Ninja's log: exactly the HIP objects whose sources include what
// changed are compiled again, and nothing else. Without mlxbuild marking the
// dependents, Ninja would recompile none of them for a header edit.
func TestHeaderEditsRebuildCustomCommandHIPObjects(t *testing.T) {
	p, run := forkStyleProject(t)
	build := filepath.Join(p.Cache, "rocm", "build")
	run(t)
	log := ninjaLog(t, build)
	if first, want := rerun(nil, log), []string{"binary.hip.o", "device.hip.o", "reduce.hip.o"}; !reflect.DeepEqual(first, want) {
		t.Fatalf("first build compiled %v, want %v", first, want)
	}
	edit := func(name string, change func(), want ...string) {
		t.Run(name, func(t *testing.T) {
			time.Sleep(20 * time.Millisecond) // a new mtime, whatever the clock's tick
			change()
			run(t)
			now := ninjaLog(t, build)
			got := rerun(log, now)
			log = now
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("recompiled %v, want %v", got, want)
			}
		})
	}
	appendTo := func(path string) func() {
		return func() {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			testutil.WriteFile(t, path, string(data)+"\n// edited\n")
		}
	}
	rocm := filepath.Join(p.Rocm, "mlx/backend/rocm")
	// kernel_port.h: binary.hip and reduce.hip include it.
	edit("change an overlay header", appendTo(filepath.Join(rocm, "kernel_port.h")), "binary.hip.o", "reduce.hip.o")
	// hip_kernel.h: device.hip and reduce.hip.
	edit("touch an overlay header", func() {
		later := time.Now().Add(time.Second)
		os.Chtimes(filepath.Join(rocm, "hip_kernel.h"), later, later)
	}, "device.hip.o", "reduce.hip.o")
	edit("change a .hip file", appendTo(filepath.Join(rocm, "binary.hip")), "binary.hip.o")
	// mlx/dtype.h is a core file every HIP source reaches through a header.
	edit("change a core file", appendTo(filepath.Join(p.Mlx, "mlx/dtype.h")), "binary.hip.o", "device.hip.o", "reduce.hip.o")
	edit("change a CPU file", appendTo(filepath.Join(p.Mlx, "mlx/backend/cpu/binary.cpp")))
	// An overlay copy of a core header, then dropped: the pristine one is back.
	edit("add an overlay core header", func() {
		testutil.WriteFile(t, filepath.Join(p.Rocm, "mlx/dtype.h"), "// fork's dtype\n"+mustRead(t, filepath.Join(p.Mlx, "mlx/dtype.h")))
	}, "binary.hip.o", "device.hip.o", "reduce.hip.o")
	edit("drop an overlay header", func() {
		os.Remove(filepath.Join(p.Rocm, "mlx/dtype.h"))
	}, "binary.hip.o", "device.hip.o", "reduce.hip.o")
	edit("no change", func() {})
	// Other architectures change every command line: Ninja redoes them all.
	edit("change the architectures", func() { t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx90a") }, "binary.hip.o", "device.hip.o", "reduce.hip.o")
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
