package flow_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// The overlay file the incremental subtests edit, its object in the build
// directory, and the archive that holds it.
const (
	hipFile    = "mlx/backend/rocm/binary.hip"
	hipObject  = "mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o"
	hipArchive = "libmlx_rocm_kernels.a"
)

// TestBuildROCm drives build:rocm of the example with Debian's real ROCm
// toolchain, once for gfx1030 and once for gfx1030;gfx90a, and runs every
// other check on that one build (HIP compiles are the slow part): plan's
// reasons, the no-op, a C++ and a Cargo consumer started with
// LD_LIBRARY_PATH unset, a one-file edit, a missing library, and gfx1100.
//
// rocBLAS and hipBLASLt, which Debian lacks, come from stub libraries built
// with gcc in a fake prefix that the project's spec override adds to
// link.search; hipFFT is removed.
func TestBuildROCm(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "c++", "gcc", "readelf")
	ctx := context.Background()
	fake := filepath.Join(t.TempDir(), "fakerocm")
	stubs := buildStubs(t, fake)
	// The default list is used only by the build:cargo subtest, which
	// unsets MLX_ROCM_ARCHITECTURES; it is the list the others build last.
	p := newProject(t, "link:\n  remove: [hipfft]\n  search: ["+filepath.Join(fake, "lib")+"]\n"+
		"architectures:\n  env: MLX_ROCM_ARCHITECTURES\n  probes: [kfd, rocminfo]\n  cmake: [CMAKE_HIP_ARCHITECTURES, MLX_ROCM_ARCHITECTURES]\n  rustc_env: MLXBUILD_GPU_ARCHITECTURES\n  default: [gfx1030, gfx90a]\n")
	layout := struct{ build, out, stamp string }{
		filepath.Join(p.Cache, "rocm", "build"), filepath.Join(p.Cache, "rocm", "out"), filepath.Join(p.Cache, "rocm", "stamp.json"),
	}
	opts := flow.Options{Dir: p.Dir}
	build := func(t *testing.T) (*flow.Summary, string, error) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		o := opts
		o.Stdout, o.Stderr = &stdout, &stderr
		sum, err := flow.Build(ctx, o, "rocm")
		return sum, stderr.String(), err
	}
	mustBuild := func(t *testing.T) *flow.Summary {
		t.Helper()
		sum, log, err := build(t)
		if err != nil {
			t.Fatalf("build:rocm: %v\n%s", err, log)
		}
		return sum
	}

	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	first := mustBuild(t)
	if !first.Reconfigured || first.Steps == 0 || first.Arch != "gfx1030" || !strings.Contains(first.ArchSource, "MLX_ROCM_ARCHITECTURES") {
		t.Fatalf("first build: %+v", first)
	}

	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030;gfx90a")
	t.Run("plan says why", func(t *testing.T) {
		stampBefore, _ := os.ReadFile(layout.stamp)
		var stdout bytes.Buffer
		o := opts
		o.Stdout, o.Stderr = &stdout, &bytes.Buffer{}
		if err := flow.Plan(ctx, o, "plan:rocm", "rocm"); err != nil {
			t.Fatal(err)
		}
		out := stdout.String()
		t.Logf("plan:rocm:\n%s", out)
		if !strings.Contains(out, "would redo: configure and build, because:") || !strings.Contains(out, "  - architectures: gfx1030 -> gfx1030;gfx90a\n") {
			t.Errorf("plan:rocm output:\n%s", out)
		}
		if stampAfter, _ := os.ReadFile(layout.stamp); !bytes.Equal(stampBefore, stampAfter) {
			t.Errorf("plan changed the stamp")
		}
	})

	second := mustBuild(t)
	t.Run("changing the architectures reconfigures", func(t *testing.T) {
		if !second.Reconfigured || second.Steps == 0 || second.Arch != "gfx1030;gfx90a" {
			t.Errorf("second build: %+v", second)
		}
		if !slices.Contains(second.Why, "architectures: gfx1030 -> gfx1030;gfx90a") {
			t.Errorf("Why = %q, want the architecture change", second.Why)
		}
		// Two code objects, one per target, in the kernel archive.
		ar, err := os.ReadFile(filepath.Join(layout.build, hipArchive))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"gfx1030", "gfx90a"} {
			if !bytes.Contains(ar, []byte("hipv4-amdgcn-amd-amdhsa--"+a)) {
				t.Errorf("%s has no %s code object", hipArchive, a)
			}
		}
	})

	t.Run("no-op", func(t *testing.T) {
		configured := mtimes(t, layout.build, "build.ninja", "CMakeCache.txt")
		outputs := mtimes(t, layout.out, "cargo.txt", "ldflags.txt", "link.json")
		sum := mustBuild(t)
		// cargo.txt is a rerun-if-changed input of the consumer's build.rs:
		// a no-op must leave the link plan's files alone.
		if c := changed(outputs, mtimes(t, layout.out, "cargo.txt", "ldflags.txt", "link.json")); len(c) != 0 {
			t.Errorf("a no-op rewrote the link plan's %v", c)
		}
		m := sum.Materialize
		if sum.Steps != 0 || sum.Reconfigured || len(sum.Why) != 0 || m.Written+m.Restored+m.Removed != 0 {
			t.Errorf("no-op build: %+v", sum)
		}
		if c := changed(configured, mtimes(t, layout.build, "build.ninja", "CMakeCache.txt")); len(c) != 0 {
			t.Errorf("a no-op rewrote %v (configure must be skipped)", c)
		}
	})

	// A Cargo build script's stdout is the link plan's directives: on a
	// no-op (the spec's default list is the one just built) the no-GPU
	// note, which only a configure says, is not among them.
	t.Run("build:cargo no-op says nothing of the default list", func(t *testing.T) {
		t.Setenv("MLX_ROCM_ARCHITECTURES", "")
		t.Setenv("MLXBUILD_KFD_TOPOLOGY", t.TempDir())
		t.Setenv("CARGO_FEATURE_ROCM", "1")
		var stdout, stderr bytes.Buffer
		o := opts
		o.Stdout, o.Stderr = &stdout, &stderr
		sum, err := flow.BuildForCargo(ctx, o)
		if err != nil {
			t.Fatalf("build:cargo: %v\n%s", err, stderr.String())
		}
		if strings.Contains(stdout.String(), "cargo:warning=") || !strings.HasPrefix(stdout.String(), "cargo:") || !strings.Contains(stdout.String(), "cargo:rustc-link-lib=static=mlx\n") {
			t.Errorf("build:cargo stdout, want cargo.txt alone:\n%s", stdout.String())
		}
		if sum.Steps != 0 {
			t.Errorf("the spec's default list is what was built: %+v", sum)
		}
	})

	// Read as a parent repository would, through the public reader.
	plan, err := linkplan.Read(layout.out)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("C++ consumer", func(t *testing.T) {
		if !slices.Contains(plan.Dynamic, "rocblas") || !slices.Contains(plan.Dynamic, "hipblaslt") || !slices.Contains(plan.Dynamic, "amdhip64") {
			t.Errorf("link.json dynamic = %v", plan.Dynamic)
		}
		exe := filepath.Join(t.TempDir(), "consumer")
		args := []string{"-std=c++17", "-D__HIP_PLATFORM_AMD__", "-DMLX_CONSUMER_ROCM",
			"-I", filepath.Join(p.Cache, "rocm", "tree"),
			filepath.Join(examplesDir, "cxx-consumer", "main.cpp"), filepath.Join("testdata", "stubcall.cpp")}
		args = append(append(args, linkArgs(t, filepath.Join(layout.out, "ldflags.txt"))...), "-o", exe)
		testutil.RunOK(t, nil, "", "c++", args...)

		out := testutil.RunOK(t, testutil.EnvWithout("LD_LIBRARY_PATH"), "", exe)
		for _, want := range []string{"backend=rocm archs=gfx1030,gfx90a", "stubs: rocblas_create_handle=0 hipblasLtCreate=0", "rocm: "} {
			if !strings.Contains(out, want) {
				t.Errorf("consumer output lacks %q:\n%s", want, out)
			}
		}
		dyn := testutil.RunOK(t, nil, "", "readelf", "-d", exe)
		for _, want := range []string{"Shared library: [libamdhip64.so", "Shared library: [librocblas.so.4]", "Shared library: [libhipblaslt.so.0]"} {
			if !strings.Contains(dyn, want) {
				t.Errorf("readelf -d lacks NEEDED %q:\n%s", want, dyn)
			}
		}
		runpath := testutil.Field(dyn, "Library runpath: [")
		if runpath == "" || strings.Contains(dyn, "Library rpath:") {
			t.Errorf("want DT_RUNPATH and no DT_RPATH:\n%s", dyn)
		}
		dirs := strings.Split(runpath, ":")
		if !slices.Contains(dirs, stubs) || !slices.Equal(dirs, plan.RunPaths) {
			t.Errorf("RUNPATH %q, want the plan's run paths %v (with %s)", runpath, plan.RunPaths, stubs)
		}
	})

	t.Run("Cargo consumer", func(t *testing.T) {
		testutil.NeedTools(t, "cargo")
		manifest, _ := filepath.Abs(filepath.Join(examplesDir, "cargo-consumer", "Cargo.toml"))
		env := append(testutil.EnvWithout("LD_LIBRARY_PATH", "MLXBUILD_CARGO_TXT", "CARGO_TARGET_DIR"),
			"MLXBUILD_CARGO_TXT="+filepath.Join(layout.out, "cargo.txt"), "CARGO_TARGET_DIR="+t.TempDir())
		out := testutil.RunOK(t, env, "", "cargo", "run", "--offline", "--quiet", "--manifest-path", manifest)
		for _, want := range []string{"backend=rocm library archs=gfx1030,gfx90a", "mlx_sum = 110", "embedded architectures: gfx1030;gfx90a\n", "embedded mlx pin: " + examplePin} {
			if !strings.Contains(out, want) {
				t.Errorf("cargo run output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("editing one hip file recompiles only its object", func(t *testing.T) {
		objects := mtimes(t, layout.build, ".o", ".a")
		src := filepath.Join(p.Rocm, hipFile)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, src, string(data)+"// edited by the job test\n")
		sum := mustBuild(t)
		m := sum.Materialize
		if m.Written != 1 || m.Restored+m.Removed != 0 || !slices.Equal(m.Changed, []string{hipFile}) {
			t.Errorf("materialize %+v, want only %s written", m, hipFile)
		}
		if sum.Reconfigured || !slices.Equal(sum.Why, []string{"overlay: " + hipFile + " changed"}) {
			t.Errorf("reconfigured=%v why=%q, want no configure and the one overlay change", sum.Reconfigured, sum.Why)
		}
		got := changed(objects, mtimes(t, layout.build, ".o", ".a"))
		if want := []string{hipArchive, hipObject}; !slices.Equal(got, want) || sum.Steps != len(want) {
			t.Errorf("%d steps changed %v, want %v", sum.Steps, got, want)
		}
	})

	t.Run("a bare touch of an overlay file recompiles only its object", func(t *testing.T) {
		// The content is the same, so the tree file is not rewritten, but it
		// takes the newer mtime so Ninja rebuilds its object and nothing else.
		objects := mtimes(t, layout.build, ".o", ".a")
		later := time.Now().Add(2 * time.Second)
		if err := os.Chtimes(filepath.Join(p.Rocm, hipFile), later, later); err != nil {
			t.Fatal(err)
		}
		sum := mustBuild(t)
		m := sum.Materialize
		if m.Written != 0 || m.Touched != 1 || !slices.Equal(m.Changed, []string{hipFile}) {
			t.Errorf("materialize %+v, want only %s touched", m, hipFile)
		}
		got := changed(objects, mtimes(t, layout.build, ".o", ".a"))
		if want := []string{hipArchive, hipObject}; !slices.Equal(got, want) || sum.Steps != len(want) || sum.Reconfigured {
			t.Errorf("%d steps changed %v (reconfigured %v), want %v", sum.Steps, got, sum.Reconfigured, want)
		}
	})

	t.Run("a missing library is named before link", func(t *testing.T) {
		lib := filepath.Join(stubs, "librocblas.so")
		if err := os.Rename(lib, lib+".away"); err != nil {
			t.Fatal(err)
		}
		ldflags := mtimes(t, layout.out, "ldflags.txt")
		// A source edit makes work for Ninja; the missing library must stop
		// the build before it, so the object stays as it was.
		objects := mtimes(t, layout.build, ".o", ".a")
		src := filepath.Join(p.Rocm, hipFile)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, src, string(data)+"// edited again\n")
		// Put the library and the source back and rebuild, so the subtests
		// after this one start from a good build.
		defer func() {
			os.Rename(lib+".away", lib)
			testutil.WriteFile(t, src, string(data))
			mustBuild(t)
		}()
		_, _, err = build(t)
		var missing *backends.MissingLibraryError
		if !errors.As(err, &missing) {
			t.Fatalf("want a MissingLibraryError, got %v", err)
		}
		t.Logf("the error:\n%v", err)
		for _, want := range []string{"librocblas.so: not in ", stubs, "install rocblas from ROCm's repository", "ROCM_PATH"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
		if strings.Contains(err.Error(), "hipblaslt") || strings.Contains(err.Error(), "amdhip64") {
			t.Errorf("error names libraries that are there:\n%v", err)
		}
		if c := changed(ldflags, mtimes(t, layout.out, "ldflags.txt")); len(c) != 0 {
			t.Errorf("a failed plan rewrote %v", c)
		}
		if c := changed(objects, mtimes(t, layout.build, ".o", ".a")); len(c) != 0 {
			t.Errorf("the build compiled %v before naming the missing library", c)
		}
	})

	t.Run("gfx1100 is not supported by Debian's toolchain", func(t *testing.T) {
		t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1100")
		configured := mtimes(t, layout.build, "build.ninja", "CMakeCache.txt")
		_, _, err := build(t)
		if err == nil || !strings.Contains(err.Error(), "gfx1100 is not supported by the ROCm ") || !strings.Contains(err.Error(), "MLX_ROCM_ARCHITECTURES") {
			t.Fatalf("want the plain not-supported error naming MLX_ROCM_ARCHITECTURES, got %v", err)
		}
		t.Logf("the error:\n%v", err)
		if c := changed(configured, mtimes(t, layout.build, "build.ninja", "CMakeCache.txt")); len(c) != 0 {
			t.Errorf("CMake ran for an unsupported target: %v changed", c)
		}
	})

	t.Run("the last good build stays", func(t *testing.T) {
		sum, log, err := build(t)
		if err != nil {
			t.Fatalf("build:rocm: %v\n%s", err, log)
		}
		t.Logf("build:rocm:\n%s", log)
		if sum.Steps != 0 || sum.Reconfigured || len(sum.Why) != 0 {
			t.Errorf("after the failures, build:rocm for gfx1030;gfx90a: %+v", sum)
		}
	})
}

// buildStubs builds librocblas.so.4 and libhipblaslt.so.0 from
// testdata/stubs with gcc into prefix/lib, each with its link-time name,
// and returns prefix/lib.
func buildStubs(t *testing.T, prefix string) string {
	t.Helper()
	lib := filepath.Join(prefix, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ name, soname string }{{"rocblas", "librocblas.so.4"}, {"hipblaslt", "libhipblaslt.so.0"}} {
		src, _ := filepath.Abs(filepath.Join("testdata", "stubs", s.name+".c"))
		testutil.RunOK(t, nil, "", "gcc", "-shared", "-fPIC", "-Wl,-soname,"+s.soname, "-o", filepath.Join(lib, s.soname), src)
		if err := os.Symlink(s.soname, filepath.Join(lib, "lib"+s.name+".so")); err != nil {
			t.Fatal(err)
		}
	}
	return lib
}
