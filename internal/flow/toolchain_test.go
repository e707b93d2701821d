package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// toolchainProject is the example built for gfx1030 with Debian's ROCm
// (stub rocBLAS and hipBLASLt, no hipFFT), and helpers to build and plan
// it and read what the build directory holds.
type toolchainProject struct {
	*project
	build, out string // the rocm build directory and link plan
}

func newToolchainProject(t *testing.T) *toolchainProject {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "gcc")
	stubs := buildStubs(t, filepath.Join(t.TempDir(), "fakerocm"))
	p := newProject(t, "link:\n  remove: [hipfft]\n  search: ["+stubs+"]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	for _, v := range []string{"ROCM_PATH", "HIP_CLANG_PATH", "CC", "CXX"} {
		t.Setenv(v, "")
	}
	return &toolchainProject{project: p, build: filepath.Join(p.Cache, "rocm", "build"), out: filepath.Join(p.Cache, "rocm", "out")}
}

// planFiles are the link plan's files' modification times.
func (tp *toolchainProject) planFiles(t *testing.T) map[string]time.Time {
	t.Helper()
	return mtimes(t, tp.out, "link.json", "cargo.txt", "ldflags.txt")
}

func (tp *toolchainProject) run(t *testing.T) (*flow.Summary, string, error) {
	t.Helper()
	var stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: tp.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "rocm")
	return sum, stderr.String(), err
}

func (tp *toolchainProject) mustBuild(t *testing.T) (*flow.Summary, string) {
	t.Helper()
	sum, log, err := tp.run(t)
	if err != nil {
		t.Fatalf("build:rocm: %v\n%s", err, log)
	}
	return sum, log
}

func (tp *toolchainProject) plan(t *testing.T) string {
	t.Helper()
	var stdout bytes.Buffer
	if err := flow.Plan(context.Background(), flow.Options{Dir: tp.Dir, Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:rocm", "rocm"); err != nil {
		t.Fatalf("plan:rocm: %v", err)
	}
	return stdout.String()
}

// cached is the value of name in the build directory's CMakeCache.txt.
func (tp *toolchainProject) cached(t *testing.T, name string) string {
	t.Helper()
	c, err := cmakecache.Read(tp.build)
	if err != nil || c == nil {
		t.Fatalf("reading the CMake cache: %v, %v", c, err)
	}
	e, _ := c.Get(name)
	return e.Value
}

// builtForROCm checks that a build from an empty build directory holds
// HIP code: the backend's switch is ON, HIP compiles ran, and the kernel
// archive is no older than the graph CMake wrote.
func (tp *toolchainProject) builtForROCm(t *testing.T, log string) {
	t.Helper()
	if v := tp.cached(t, "MLX_BUILD_ROCM"); v != "ON" {
		t.Errorf("MLX_BUILD_ROCM:BOOL=%s in CMakeCache.txt, want ON", v)
	}
	if !strings.Contains(log, "HIP mlx/backend/rocm/binary.hip") {
		t.Errorf("no HIP compile ran:\n%s", log)
	}
	graph, err := os.Stat(filepath.Join(tp.build, "build.ninja"))
	if err != nil {
		t.Fatal(err)
	}
	ar, err := os.Stat(filepath.Join(tp.build, hipArchive))
	if err != nil || ar.ModTime().Before(graph.ModTime()) {
		t.Errorf("%s is not this graph's (%v)", hipArchive, err)
	}
}

// upToDate checks that the build after settles: nothing configured,
// nothing run (a from-scratch configure that CMake's cache then
// contradicts would start from scratch every time).
func (tp *toolchainProject) upToDate(t *testing.T) {
	t.Helper()
	sum, log := tp.mustBuild(t)
	if sum.Reconfigured || sum.Steps != 0 || len(sum.Why) != 0 {
		t.Errorf("the build after is no no-op: %+v\n%s", sum, log)
	}
}

// secondROCmRoot makes a ROCm root outside /usr that links to Debian's
// ROCm 5.2: include, bin, the multiarch library folder and clang's
// resource folder (hip-lang finds compiler-rt beside the compiler).
func secondROCmRoot(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "rocm-5.2-second")
	for _, d := range []string{"include", "bin", filepath.Join("lib", "x86_64-linux-gnu"), filepath.Join("lib", "clang")} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, d)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("/usr", d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// configureLine is the build's one line about configuring.
var configureLine = regexp.MustCompile(`(?m)^==> configure.*$`)

// TestSecondROCmRootConfiguresFromScratch is issue 26's first case: built
// with Debian's ROCm, then ROCM_PATH names a second root. The new HIP
// compiler makes CMake delete its cache and configure again with every
// define of the command line lost (MLX_BUILD_ROCM falls back to OFF: a
// CPU library, linked with the old kernel archive, reported as built).
// mlxbuild must empty the build directory itself and configure with
// every define, say so and why, and plan must say so first.
func TestSecondROCmRootConfiguresFromScratch(t *testing.T) {
	tp := newToolchainProject(t)
	tp.mustBuild(t)
	firstCompiler := tp.cached(t, "CMAKE_HIP_COMPILER")
	root := secondROCmRoot(t)
	t.Setenv("ROCM_PATH", root)

	plan := tp.plan(t)
	if !strings.Contains(plan, "would redo: configure from scratch (in an empty build directory) and build, because:\n") {
		t.Errorf("plan:rocm does not say the build directory is emptied:\n%s", plan)
	}
	sum, log := tp.mustBuild(t)
	want := "==> configure from scratch (CMAKE_HIP_COMPILER changed: " + firstCompiler + " -> " + filepath.Join(root, "bin", "clang++-15") + ")"
	if got := configureLine.FindString(log); got != want {
		t.Errorf("configure line %q, want %q\n%s", got, want, log)
	}
	if strings.Contains(log, "You have changed variables that require your cache to be deleted") {
		t.Errorf("CMake deleted its cache itself:\n%s", log)
	}
	if clog, _ := os.ReadFile(sum.LogPath + ".configure"); strings.Contains(string(clog), "require your cache to be deleted") {
		t.Errorf("CMake deleted its cache itself:\n%s", clog)
	}
	if got := tp.cached(t, "CMAKE_HIP_COMPILER"); got != filepath.Join(root, "bin", "clang++-15") {
		t.Errorf("CMAKE_HIP_COMPILER=%s, want the second root's", got)
	}
	tp.builtForROCm(t, log)
	lp, err := linkplan.Read(tp.out)
	if err != nil {
		t.Fatal(err)
	}
	if lib := filepath.Join(root, "lib", "x86_64-linux-gnu"); !slices.Contains(lp.RunPaths, lib) || !slices.Contains(lp.SearchDirs, lib) {
		t.Errorf("the link plan does not name the second root's libraries %s: run paths %v, search %v", lib, lp.RunPaths, lp.SearchDirs)
	}
	tp.upToDate(t)
	if plan := tp.plan(t); !strings.Contains(plan, "would redo: nothing") {
		t.Errorf("plan after the build:\n%s", plan)
	}
}

// TestCXXChangeConfiguresFromScratch: CMake reads CXX only into a new
// cache; a later configure keeps the old compiler without a word. A CXX
// that names another compiler (a link to g++) must configure from an
// empty build directory, and CMake must then compile with it.
func TestCXXChangeConfiguresFromScratch(t *testing.T) {
	tp := newToolchainProject(t)
	tp.mustBuild(t)
	gxx, err := filepath.EvalSymlinks("/usr/bin/g++")
	if err != nil {
		t.Skipf("no g++: %v", err)
	}
	cxx := filepath.Join(t.TempDir(), "bin", "g++")
	if err := os.MkdirAll(filepath.Dir(cxx), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(gxx, cxx); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CXX", cxx)
	_, log := tp.mustBuild(t)
	want := "==> configure from scratch (environment's CXX changed: (none) -> " + cxx + ")"
	if got := configureLine.FindString(log); got != want {
		t.Errorf("configure line %q, want %q\n%s", got, want, log)
	}
	if got := tp.cached(t, "CMAKE_CXX_COMPILER"); got != cxx {
		t.Errorf("CMAKE_CXX_COMPILER=%s, want %s", got, cxx)
	}
	data, err := os.ReadFile(filepath.Join(tp.build, "compile_commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []struct{ File, Command string }
	if err := json.Unmarshal(data, &cmds); err != nil {
		t.Fatal(err)
	}
	cpp := 0
	for _, c := range cmds {
		if strings.HasSuffix(c.File, ".cpp") {
			cpp++
			if !strings.HasPrefix(c.Command, cxx+" ") {
				t.Errorf("%s compiled with %q, want %s", c.File, c.Command, cxx)
			}
		}
	}
	if cpp == 0 {
		t.Errorf("no C++ compile in compile_commands.json")
	}
	tp.builtForROCm(t, log)
	tp.upToDate(t)
}

// TestToolchainVersionChangeConfiguresFromScratch: a package upgrade
// rewrites hip_version.h under the same root. The discovery memo must see
// it, and the build must configure from an empty build directory (CMake
// would keep its detection of the old compiler).
func TestToolchainVersionChangeConfiguresFromScratch(t *testing.T) {
	tp := newToolchainProject(t)
	// A root whose include/hip/hip_version.h is its own file.
	root := secondROCmRoot(t)
	inc := filepath.Join(root, "include")
	if err := os.Remove(inc); err != nil {
		t.Fatal(err)
	}
	linkEntries(t, "/usr/include", inc, "hip")
	linkEntries(t, "/usr/include/hip", filepath.Join(inc, "hip"), "hip_version.h")
	hv := filepath.Join(inc, "hip", "hip_version.h")
	orig, err := os.ReadFile("/usr/include/hip/hip_version.h")
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, hv, string(orig))
	t.Setenv("ROCM_PATH", root)
	tp.mustBuild(t)
	hipID := filepath.Join(tp.build, "CMakeFiles", "3.25.1", "CMakeHIPCompiler.cmake")
	before, _ := os.Stat(hipID)

	// The upgrade: a new patch level, the file replaced as dpkg does.
	bumped := strings.Replace(string(orig), "#define HIP_VERSION_PATCH 21153", "#define HIP_VERSION_PATCH 21154", 1)
	if bumped == string(orig) {
		t.Fatalf("%s has no HIP_VERSION_PATCH 21153 to bump", hv)
	}
	testutil.WriteFile(t, hv+".dpkg-new", bumped)
	if err := os.Rename(hv+".dpkg-new", hv); err != nil {
		t.Fatal(err)
	}
	if plan := tp.plan(t); !strings.Contains(plan, "would redo: configure from scratch") || !strings.Contains(plan, "toolchain.version: 5.2.21153 -> 5.2.21154") {
		t.Errorf("plan:rocm after the upgrade:\n%s", plan)
	}
	_, log := tp.mustBuild(t)
	if got, want := configureLine.FindString(log), "==> configure from scratch (toolchain.version changed: 5.2.21153 -> 5.2.21154)"; got != want {
		t.Errorf("configure line %q, want %q\n%s", got, want, log)
	}
	if after, err := os.Stat(hipID); err != nil || before == nil || os.SameFile(before, after) && after.ModTime().Equal(before.ModTime()) {
		t.Errorf("CMake did not detect the HIP compiler again (%s: %v)", hipID, err)
	}
	tp.builtForROCm(t, log)
	tp.upToDate(t)
}

// linkEntries makes dst a directory of links to every entry of src but
// except.
func linkEntries(t *testing.T, src, dst, except string) {
	t.Helper()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == except {
			continue
		}
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackendSwitchedOffIsRefused: the project's CMake turns
// MLX_BUILD_ROCM off (FORCE) after a good build. Ninja regenerates a CPU
// graph; the old kernel archive is still on disk. The build must refuse,
// naming the variable, its value and the spec's, write no link plan, and
// plan and verify must say so; fixed, it builds again.
func TestBackendSwitchedOffIsRefused(t *testing.T) {
	tp := newToolchainProject(t)
	tp.mustBuild(t)
	planBefore := tp.planFiles(t)
	top := filepath.Join(tp.Mlx, "CMakeLists.txt")
	good, err := os.ReadFile(top)
	if err != nil {
		t.Fatal(err)
	}
	option := `option(MLX_BUILD_ROCM "Build the ROCm backend (needs the ROCm overlay)" OFF)` + "\n"
	if !strings.Contains(string(good), option) {
		t.Fatalf("%s has no %q", top, option)
	}
	time.Sleep(10 * time.Millisecond) // a newer mtime for Ninja
	testutil.WriteFile(t, top, strings.Replace(string(good), option, option+`set(MLX_BUILD_ROCM OFF CACHE BOOL "" FORCE)`+"\n", 1))

	_, log, err := tp.run(t)
	if err == nil {
		t.Fatalf("a build whose CMake turned MLX_BUILD_ROCM off succeeded:\n%s", log)
	}
	msg := fail.Message(err)
	for _, want := range []string{"refusing to build: " + filepath.Join(tp.build, "CMakeCache.txt"), "MLX_BUILD_ROCM is OFF; the spec sets ON", "FORCE"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%s", want, msg)
		}
	}
	if fail.ExitCode(err) != 1 {
		t.Errorf("exit code %d, want 1", fail.ExitCode(err))
	}
	if c := changed(planBefore, tp.planFiles(t)); len(c) != 0 {
		t.Errorf("the refused build rewrote the link plan's %v", c)
	}
	if plan := tp.plan(t); !strings.Contains(plan, "would redo: configure and build, because:\n") || !strings.Contains(plan, "CMakeCache.txt has MLX_BUILD_ROCM=OFF; this build sets ON") {
		t.Errorf("plan:rocm does not say the cache is wrong:\n%s", plan)
	}
	res, err := flow.Verify(context.Background(), flow.Options{Dir: tp.Dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "rocm")
	if err != nil {
		t.Fatal(err)
	}
	refused := false
	for _, r := range res.Results {
		if r.Check == "build" && r.Status == verify.Fail && len(r.Findings) > 0 && strings.Contains(r.Findings[0].Message, "MLX_BUILD_ROCM is OFF") {
			refused = true
		}
	}
	if !res.Failed || !refused {
		t.Errorf("verify:rocm does not fail the build check on MLX_BUILD_ROCM: %+v", res.Results)
	}

	// Fixed, it configures with the switch ON; Ninja's log says the
	// kernel archive of the first build is this graph's, unchanged.
	testutil.WriteFile(t, top, string(good))
	tp.mustBuild(t)
	if v := tp.cached(t, "MLX_BUILD_ROCM"); v != "ON" {
		t.Errorf("MLX_BUILD_ROCM:BOOL=%s after the fix, want ON", v)
	}
	lp, err := linkplan.Read(tp.out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(lp.Static, filepath.Join(tp.build, hipArchive)) {
		t.Errorf("the link plan after the fix links %v, want %s", lp.Static, hipArchive)
	}
	tp.upToDate(t)
}

// TestArchiveOfAnEarlierGraphIsNotLinked: the overlay renames the kernel
// library's target. Ninja regenerates and builds the new archive; the old
// libmlx_rocm_kernels.a, which link.static names, stays on disk from the
// earlier graph. The link plan must not link it.
func TestArchiveOfAnEarlierGraphIsNotLinked(t *testing.T) {
	tp := newToolchainProject(t)
	tp.mustBuild(t)
	planBefore := tp.planFiles(t)
	lists := filepath.Join(tp.Rocm, "mlx", "backend", "rocm", "CMakeLists.txt")
	data, err := os.ReadFile(lists)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, lists, strings.ReplaceAll(string(data), "mlx_rocm_kernels", "mlx_rocm_kernels_v2"))

	_, log, err := tp.run(t)
	if err == nil {
		t.Fatalf("the build linked an archive of the earlier graph:\n%s", log)
	}
	stale := filepath.Join(tp.build, hipArchive)
	for _, want := range []string{"libmlx_rocm_kernels.a: " + stale + " is older than the build graph, which does not build it", "this build did not produce it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
	if _, serr := os.Stat(filepath.Join(tp.build, "libmlx_rocm_kernels_v2.a")); serr != nil {
		t.Errorf("Ninja did not build the renamed archive: %v\n%s", serr, log)
	}
	if c := changed(planBefore, tp.planFiles(t)); len(c) != 0 {
		t.Errorf("the refused link plan rewrote %v", c)
	}
}

// TestMovedCacheConfiguresFromScratch: the cache root is moved (a CI
// cache restored elsewhere) and MLXBUILD_CACHE follows it. CMake refuses
// a cache made for another source directory; mlxbuild must start the
// configure from an empty build directory and say why.
func TestMovedCacheConfiguresFromScratch(t *testing.T) {
	tp := newToolchainProject(t)
	tp.mustBuild(t)
	oldTree := filepath.Join(tp.Cache, "rocm", "tree")
	moved := filepath.Join(t.TempDir(), "restored-cache")
	if err := os.Rename(tp.Cache, moved); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MLXBUILD_CACHE", moved)
	tp.Cache, tp.build, tp.out = moved, filepath.Join(moved, "rocm", "build"), filepath.Join(moved, "rocm", "out")
	_, log := tp.mustBuild(t)
	want := "==> configure from scratch (CMAKE_HOME_DIRECTORY changed: " + oldTree + " -> " + filepath.Join(moved, "rocm", "tree") + ")"
	if got := configureLine.FindString(log); got != want {
		t.Errorf("configure line %q, want %q\n%s", got, want, log)
	}
	tp.builtForROCm(t, log)
	tp.upToDate(t)
}
