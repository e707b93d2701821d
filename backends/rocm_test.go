package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestLocateROCmDebian finds the toolchain of this machine with ROCM_PATH
// unset: Debian 12's packages under /usr, unless AMD's /opt/rocm is there.
func TestLocateROCmDebian(t *testing.T) {
	testutil.NeedTools(t, "hipcc")
	r, err := LocateROCm(envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.version == nil || r.hipCompiler == "" || !isDir(r.deviceLibDir) || !hasLib(r.LibDir, "amdhip64") {
		t.Fatalf("incomplete toolchain: %+v", r)
	}
	if !isFile(filepath.Join(r.deviceLibDir, "ocml.bc")) {
		t.Errorf("deviceLibDir %s holds no ocml.bc", r.deviceLibDir)
	}
	if r.root != "/usr" {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs Debian 12's ROCm at /usr, found %s", r)
		}
		t.Skipf("this machine has %s; the Debian layout checks below need /usr", r)
	}
	if r.from != "/usr" || !r.multiarchLayout || r.LibDir != "/usr/lib/"+multiarch.Host() {
		t.Errorf("Debian layout: from=%q multiarchLayout=%v LibDir=%q", r.from, r.multiarchLayout, r.LibDir)
	}
	if seg := r.version.Segments(); seg[0] != 5 || seg[1] != 2 {
		t.Errorf("Debian 12 ships HIP 5.2, got %s (from %s)", r.version, r.versionFrom)
	}
	if !strings.HasPrefix(filepath.Base(r.hipCompiler), "clang++") {
		t.Errorf("hipCompiler = %s, want a clang++", r.hipCompiler)
	}
}

func TestLocateROCmPathNotARoot(t *testing.T) {
	dir := t.TempDir()
	_, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": dir}))
	if err == nil {
		t.Fatal("want an error for an empty ROCM_PATH")
	}
	for _, want := range []string{"ROCM_PATH=" + dir, "hip_runtime.h", "unset it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// fakeAMDRoot lays out the parts of AMD's /opt/rocm that LocateROCm reads.
func fakeAMDRoot(t *testing.T) string {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".info", "version"), "6.1.2-119\n", 0o644)
	writeFile(t, filepath.Join(root, "include", "hip", "hip_runtime.h"), "", 0o644)
	writeFile(t, filepath.Join(root, "lib", "libamdhip64.so.6"), "", 0o644)
	writeFile(t, filepath.Join(root, "lib", "cmake", "hip-lang", "hip-lang-config.cmake"), "", 0o644)
	writeFile(t, filepath.Join(root, "llvm", "bin", "clang++"), "", 0o755)
	writeFile(t, filepath.Join(root, "amdgcn", "bitcode", "ocml.bc"), "", 0o644)
	return root
}

func TestLocateROCmAMDLayout(t *testing.T) {
	root := fakeAMDRoot(t)
	r, err := LocateROCm(envMap(map[string]string{"ROCM_PATH": root}))
	if err != nil {
		t.Fatal(err)
	}
	if r.version.String() != "6.1.2" || r.versionFrom != ".info/version" {
		t.Errorf("Version = %s from %s, want 6.1.2 from .info/version", r.version, r.versionFrom)
	}
	if r.LibDir != filepath.Join(root, "lib") || r.multiarchLayout || r.from != "ROCM_PATH" {
		t.Errorf("LibDir=%s multiarchLayout=%v from=%s", r.LibDir, r.multiarchLayout, r.from)
	}
	if r.hipCompiler != filepath.Join(root, "llvm", "bin", "clang++") {
		t.Errorf("hipCompiler = %s", r.hipCompiler)
	}
	if r.deviceLibDir != filepath.Join(root, "amdgcn", "bitcode") {
		t.Errorf("deviceLibDir = %s", r.deviceLibDir)
	}
	defs, env, err := r.CMakeSetup(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if defs["CMAKE_HIP_COMPILER_ROCM_ROOT"] != root || defs["CMAKE_HIP_COMPILER"] != r.hipCompiler {
		t.Errorf("defines for a ROCm root outside /opt/rocm: %v", defs)
	}
	if len(env) == 0 || env[0] != "CMAKE_PREFIX_PATH="+root {
		t.Errorf("env = %v, want CMAKE_PREFIX_PATH=%s", env, root)
	}
	if _, ok := defs["CMAKE_HIP_FLAGS"]; ok {
		t.Errorf("an AMD layout needs no --rocm-path flags: %v", defs)
	}
}

func TestCMakeSetupOptRocmAddsNothing(t *testing.T) {
	r := &rocmToolchain{root: "/opt/rocm", LibDir: "/opt/rocm/lib"}
	defs, env, err := r.CMakeSetup(t.TempDir())
	if err != nil || len(defs) != 0 || len(env) != 0 {
		t.Fatalf("CMakeSetup on /opt/rocm = %v, %v, %v; want nothing", defs, env, err)
	}
}

func TestCMakeSetupDebian(t *testing.T) {
	testutil.NeedTools(t, "hipcc")
	r, err := LocateROCm(envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !r.multiarchLayout {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs Debian 12's ROCm (at /usr, multiarch), found %s", r)
		}
		t.Skipf("%s is not Debian's multiarch layout", r)
	}
	scratch := t.TempDir()
	defs, env, err := r.CMakeSetup(scratch)
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(scratch, "rocm-cmake-prefix")
	link := filepath.Join(prefix, "lib", "cmake", "hip-lang")
	if got, err := os.Readlink(link); err != nil || got != filepath.Join(r.LibDir, "cmake", "hip-lang") {
		t.Errorf("%s -> %q (%v), want %s", link, got, err, filepath.Join(r.LibDir, "cmake", "hip-lang"))
	}
	if st, err := os.Lstat(filepath.Join(prefix, "lib", "cmake", "amd_comgr")); err != nil || !st.IsDir() {
		t.Errorf("amd_comgr in the prefix is not a directory of forwarding files (%v); a link would make its config resolve its prefix through it", err)
	}
	want := map[string]string{
		"CMAKE_HIP_COMPILER":           r.hipCompiler,
		"CMAKE_HIP_COMPILER_ROCM_ROOT": prefix,
		"CMAKE_HIP_FLAGS":              "--rocm-path=/usr --rocm-device-lib-path=" + r.deviceLibDir,
	}
	for k, v := range want {
		if defs[k] != v {
			t.Errorf("%s = %q, want %q", k, defs[k], v)
		}
	}
	if len(env) != 1 || env[0] != "CMAKE_PREFIX_PATH="+prefix {
		t.Errorf("env = %v", env)
	}
	// A second call keeps the links (a configure input must not look changed).
	st1, _ := os.Lstat(filepath.Join(prefix, "lib", "cmake", "hip-lang"))
	if _, _, err := r.CMakeSetup(scratch); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Lstat(filepath.Join(prefix, "lib", "cmake", "hip-lang"))
	if !st1.ModTime().Equal(st2.ModTime()) {
		t.Error("second CMakeSetup replaced an unchanged link")
	}
}

// TestSupportsArch compiles the probe kernel with the real toolchain: gfx1030
// works with Debian's ROCm 5.2; gfx1100 (no device libraries) and gfx942
// (unknown to clang 15) must fail with an error that says what to do.
func TestSupportsArch(t *testing.T) {
	testutil.NeedTools(t, "hipcc")
	r, err := LocateROCm(envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.SupportsArch("gfx1030"); err != nil {
		t.Errorf("gfx1030: %v", err)
	}
	if r.version.Segments()[0] >= 6 {
		t.Skipf("%s may support gfx11xx; the refusal checks below are for Debian's 5.2", r)
	}
	for _, gfx := range []string{"gfx1100", "gfx942"} {
		err := r.SupportsArch(gfx)
		if err == nil {
			t.Errorf("%s: want an error from %s", gfx, r)
			continue
		}
		for _, want := range []string{gfx + " is not supported", r.version.String(), "ROCM_PATH", "MLX_ROCM_ARCHITECTURES"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not contain %q", gfx, err, want)
			}
		}
	}
	// The answer is remembered: the cache holds one entry per target probed.
	if len(r.archCache) != 3 {
		t.Errorf("archCache has %d entries, want 3: %v", len(r.archCache), r.archCache)
	}
	if err := r.SupportsArch("gfx1100"); err == nil || err != r.archCache["gfx1100"] {
		t.Errorf("second gfx1100 probe did not come from the cache: %v", err)
	}
}

func TestSupportsArchRejectsBadNames(t *testing.T) {
	r := &rocmToolchain{root: "/nonexistent", hipCompiler: "/nonexistent/clang++"}
	for _, bad := range []string{"gfx1030;gfx90a", "$(id)", "-o/etc/passwd", "sm_90", ""} {
		err := r.SupportsArch(bad)
		if err == nil || !strings.Contains(err.Error(), "MLX_ROCM_ARCHITECTURES") {
			t.Errorf("SupportsArch(%q) = %v, want a name error", bad, err)
		}
	}
}
