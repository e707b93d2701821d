package backends

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// fakeROCm makes a toolchain lib dir with empty files standing for the
// shared libraries a link looks for, and a build dir with the archives.
func fakeROCm(t *testing.T, libs ...string) (build string, tc *ToolchainInfo) {
	root := t.TempDir()
	for _, l := range libs {
		testutil.WriteFile(t, filepath.Join(root, "lib", "lib"+l+".so"), "")
	}
	build = t.TempDir()
	testutil.WriteFile(t, filepath.Join(build, "libmlx.a"), "!<arch>\n")
	testutil.WriteFile(t, filepath.Join(build, "mlx", "backend", "rocm", "libmlx_rocm_kernels.a"), "!<arch>\n")
	return build, &ToolchainInfo{Name: "rocm", Env: "ROCM_PATH", Root: root, bin: filepath.Join(root, "bin"), Lib: filepath.Join(root, "lib"), Version: version.Must(version.NewVersion("5.2.3"))}
}

func TestLinkPlanROCm(t *testing.T) {
	s, _ := configs.Builtin("rocm")
	build, tc := fakeROCm(t, "amdhip64", "rocblas", "hiprand", "hipblaslt", "hipfft")
	p, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc, Architectures: []string{"gfx1030", "gfx90a"}, Pin: strings.Repeat("a", 40), RerunPaths: []string{"/p/overlay"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"amdhip64", "rocblas", "hiprand", "hipblaslt", "hipfft"}; strings.Join(p.Dynamic, ",") != strings.Join(want, ",") {
		t.Errorf("dynamic %v, want %v (hiprtc is inside amdhip64 before ROCm 6)", p.Dynamic, want)
	}
	if len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "hiprtc") {
		t.Errorf("notes %v", p.Notes)
	}
	cargo := p.Cargo()
	for _, want := range []string{
		"cargo:rustc-link-lib=static=mlx\ncargo:rustc-link-lib=static=mlx_rocm_kernels\n",
		"cargo:rustc-link-search=native=" + tc.Lib + "\n",
		"cargo:rustc-link-arg=-Wl,-rpath," + tc.Lib + "\n",
		"cargo:rustc-env=MLXBUILD_GPU_ARCHITECTURES=gfx1030;gfx90a\n",
		"cargo:rustc-env=MLXBUILD_MLX_PIN=" + strings.Repeat("a", 40) + "\n",
		"cargo:rerun-if-changed=/p/overlay\n",
		"cargo:rerun-if-env-changed=ROCM_PATH\n",
		"cargo:rerun-if-env-changed=MLX_ROCM_ARCHITECTURES\n",
	} {
		if !strings.Contains(cargo, want) {
			t.Errorf("cargo.txt lacks %q:\n%s", want, cargo)
		}
	}
	if strings.Contains(cargo, "disable-new-dtags") {
		t.Error("runpath mode must not disable new dtags")
	}
	ld := p.Ldflags()
	if !strings.HasPrefix(ld, filepath.Join(build, "libmlx.a")+" ") || !strings.Contains(ld, " -lamdhip64 ") || !strings.Contains(ld, "-Wl,-rpath,"+tc.Lib) {
		t.Errorf("ldflags %q", ld)
	}
	var back linkplan.Plan
	if err := json.Unmarshal(p.JSON(), &back); err != nil || back.Backend != "rocm" || len(back.Static) != 2 {
		t.Errorf("link.json round trip: %v %+v", err, back)
	}

	// ROCm 6 makes hiprtc a library of its own, which must then exist.
	tc.Version = version.Must(version.NewVersion("6.1.0"))
	_, err = PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc})
	if err == nil || !strings.Contains(err.Error(), "libhiprtc.so") {
		t.Errorf("ROCm 6 without libhiprtc: %v", err)
	}
	testutil.WriteFile(t, filepath.Join(tc.Lib, "libhiprtc.so"), "")
	if p, err = PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc}); err != nil || !slices.Contains(p.Dynamic, "hiprtc") {
		t.Errorf("ROCm 6 with libhiprtc: %v %v", err, p)
	}
}

func TestLinkPlanMissingLibraries(t *testing.T) {
	s, _ := configs.Builtin("rocm")
	build, tc := fakeROCm(t, "amdhip64", "hiprand", "hipfft")
	os.Remove(filepath.Join(build, "mlx", "backend", "rocm", "libmlx_rocm_kernels.a"))
	_, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc})
	if err == nil {
		t.Fatal("missing rocblas, hipblaslt and the kernel archive were not reported")
	}
	msg := err.Error()
	for _, want := range []string{"libmlx_rocm_kernels.a", "librocblas.so", "libhipblaslt.so", "ROCM_PATH", "Debian 12 has none"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
}

func TestLinkPlanLegacyRpath(t *testing.T) {
	s, _ := configs.Builtin("cpu")
	s.Rpath = configs.Rpath{Mode: "legacy", Dirs: []string{"/opt/x/lib"}}
	build := t.TempDir()
	testutil.WriteFile(t, filepath.Join(build, "libmlx.a"), "")
	p, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build})
	if err != nil {
		t.Fatal(err)
	}
	if ld := p.Ldflags(); !strings.Contains(ld, "-Wl,--disable-new-dtags -Wl,-rpath,/opt/x/lib") {
		t.Errorf("legacy ldflags %q", ld)
	}
	if _, ok := p.Env["MLXBUILD_GPU_ARCHITECTURES"]; ok {
		t.Error("cpu plan embeds GPU architectures")
	}
	if strings.Contains(string(p.JSON()), "null") {
		t.Errorf("link.json has null lists:\n%s", p.JSON())
	}
}

// TestLinkPlanRefusesControlCharacters: an overlay path with a newline
// would add its own `cargo:` line to cargo.txt; the plan refuses it, and a
// newline in the build directory too, naming what holds it.
func TestLinkPlanRefusesControlCharacters(t *testing.T) {
	s, _ := configs.Builtin("cpu")
	evil := "/p/patches\ncargo:rustc-link-arg=-Wl,--wrap=main"
	build := t.TempDir()
	testutil.WriteFile(t, filepath.Join(build, "libmlx.a"), "")
	_, err := PlanLink(s, LinkInputs{GOOS: "linux", Backend: "cpu", BuildDir: build, RerunPaths: []string{evil}})
	if err == nil || !strings.Contains(err.Error(), "rerun-if-changed path") || !strings.Contains(err.Error(), "newline") {
		t.Errorf("a newline in the overlay path: %v", err)
	}
	spaced := filepath.Join(t.TempDir(), "b\rc")
	testutil.WriteFile(t, filepath.Join(spaced, "libmlx.a"), "")
	if _, err := PlanLink(s, LinkInputs{GOOS: "linux", Backend: "cpu", BuildDir: spaced}); err == nil || !strings.Contains(err.Error(), "carriage return") {
		t.Errorf("a CR in the build directory: %v", err)
	}
}

// TestLinkPlanCompileAndCargoMetadata: the compile section becomes absolute
// directories and -D flags, cxxflags.txt's line and the links metadata a
// dependent reads as DEP_MLX_*; the archives and link.json are
// rerun-if-changed, so a rebuild of MLX relinks every consumer.
func TestLinkPlanCompileAndCargoMetadata(t *testing.T) {
	s, _ := configs.Builtin("rocm")
	s = configs.Merge(s, &configs.Spec{Compile: configs.Compile{
		Include: []string{"{build}/generated", "{toolchain.root}/include"},
		Defines: []configs.CompileDefine{{Name: "MLXCEL_BRIDGE_ROCM_BACKEND"}, {Name: "ONLY_MAC", OS: []string{"darwin"}}, {Name: "LEVEL", Value: "2"}},
	}})
	build, tc := fakeROCm(t, "amdhip64", "rocblas", "hiprand", "hipblaslt", "hipfft")
	tree, out := t.TempDir(), t.TempDir()
	p, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, TreeDir: tree, OutDir: out, Toolchain: tc, Architectures: []string{"gfx1030"}})
	if err != nil {
		t.Fatal(err)
	}
	// The built-in spec names the toolchain's include directory (HIP's
	// headers) before the override's directories.
	wantInclude := []string{tree, build, filepath.Join(tc.Root, "include"), filepath.Join(build, "generated")}
	if !slices.Equal(p.Compile.Include, wantInclude) {
		t.Errorf("include %v, want %v", p.Compile.Include, wantInclude)
	}
	wantDefines := []string{"MLXBUILD_BACKEND_ROCM", "MLXBUILD_GPU_BACKEND", "__HIP_PLATFORM_AMD__", "MLXCEL_BRIDGE_ROCM_BACKEND", "LEVEL=2"}
	if !slices.Equal(p.Compile.Defines, wantDefines) {
		t.Errorf("defines %v, want %v (ONLY_MAC is darwin's)", p.Compile.Defines, wantDefines)
	}
	wantLine := "-std=c++17 -I" + strings.Join(wantInclude, " -I") + " -DMLXBUILD_BACKEND_ROCM -DMLXBUILD_GPU_BACKEND -D__HIP_PLATFORM_AMD__ -DMLXCEL_BRIDGE_ROCM_BACKEND -DLEVEL=2\n"
	if got := p.Cxxflags(); got != wantLine {
		t.Errorf("cxxflags.txt\n got %q\nwant %q", got, wantLine)
	}
	cargo := p.Cargo()
	for _, want := range []string{
		"cargo:runpath=" + tc.Lib + "\n",
		"cargo:rpath_mode=runpath\n",
		"cargo:include=" + strings.Join(wantInclude, ":") + "\n",
		"cargo:defines=MLXBUILD_BACKEND_ROCM MLXBUILD_GPU_BACKEND __HIP_PLATFORM_AMD__ MLXCEL_BRIDGE_ROCM_BACKEND LEVEL=2\n",
		"cargo:cxx_std=c++17\n",
		"cargo:backend=rocm\n",
		"cargo:rerun-if-changed=" + filepath.Join(build, "libmlx.a") + "\n",
		"cargo:rerun-if-changed=" + filepath.Join(build, "mlx", "backend", "rocm", "libmlx_rocm_kernels.a") + "\n",
		"cargo:rerun-if-changed=" + filepath.Join(out, "link.json") + "\n",
	} {
		if !strings.Contains(cargo, want) {
			t.Errorf("cargo.txt lacks %q:\n%s", want, cargo)
		}
	}
	var back linkplan.Plan
	if err := json.Unmarshal(p.JSON(), &back); err != nil || back.Compile == nil || !slices.Equal(back.Compile.Defines, wantDefines) || back.Compile.Std != "c++17" {
		t.Errorf("link.json's compile section: %v %+v", err, back.Compile)
	}

	// With the relink file (mlxbuild's builds), cargo.txt watches it
	// alone of the outputs: a build script run that rebuilt the archives
	// would otherwise rerun once more.
	relink := filepath.Join(out, "..", "relink")
	p, err = PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, TreeDir: tree, OutDir: out, Toolchain: tc, Relink: relink})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.RerunPaths, relink) || slices.ContainsFunc(p.RerunPaths, func(r string) bool { return strings.HasSuffix(r, ".a") || strings.HasSuffix(r, "link.json") }) {
		t.Errorf("rerun-if-changed %v, want the relink file %s and no archive or link.json", p.RerunPaths, relink)
	}

	// Before the build the archives are not there: the plan names none.
	p, err = PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, TreeDir: tree, Toolchain: tc, SkipStatic: true})
	if err != nil || slices.ContainsFunc(p.RerunPaths, func(r string) bool { return strings.HasSuffix(r, ".a") }) {
		t.Errorf("a plan without archives names some as rerun-if-changed: %v %v", err, p.RerunPaths)
	}
}

// TestLinkPlanStubsLinkOnly: CUDA's stub libcuda.so links the driver
// library, but the stub directory never becomes a run path (the loader
// must find the driver's libcuda.so.1, not a stub).
func TestLinkPlanStubsLinkOnly(t *testing.T) {
	s, _ := configs.Builtin("cuda")
	root := t.TempDir()
	lib := filepath.Join(root, "lib64")
	for _, l := range []string{"cudart", "cublas", "cublasLt", "cufft", "cusolver", "cudnn", "nvrtc"} {
		testutil.WriteFile(t, filepath.Join(lib, "lib"+l+".so"), "")
	}
	build := t.TempDir()
	testutil.WriteFile(t, filepath.Join(build, "libmlx.a"), "!<arch>\n")
	tc := &ToolchainInfo{Name: "cuda", Env: "CUDA_HOME", Root: root, bin: filepath.Join(root, "bin"), Lib: lib, Version: version.Must(version.NewVersion("13.0.88"))}
	if _, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc}); err == nil || !strings.Contains(err.Error(), "libcuda.so") {
		t.Fatalf("without libcuda.so anywhere: %v", err)
	}
	stubs := filepath.Join(lib, "stubs")
	testutil.WriteFile(t, filepath.Join(stubs, "libcuda.so"), "")
	p, err := PlanLink(s, LinkInputs{GOOS: "linux", BuildDir: build, Toolchain: tc})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Dynamic, "cuda") || !slices.Contains(p.SearchDirs, stubs) {
		t.Errorf("libcuda from the stubs: dynamic %v, search %v", p.Dynamic, p.SearchDirs)
	}
	if slices.Contains(p.RunPaths, stubs) || !slices.Contains(p.RunPaths, lib) {
		t.Errorf("run paths %v: want %s and never the stubs", p.RunPaths, lib)
	}
	if ld := p.Ldflags(); !strings.Contains(ld, "-L"+stubs+" ") || strings.Contains(ld, "-rpath,"+stubs) {
		t.Errorf("ldflags %q", ld)
	}
}
