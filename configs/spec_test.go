package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestBuiltinSpecs loads every embedded spec and checks the facts the
// reference project's glue hard-codes.
func TestBuiltinSpecs(t *testing.T) {
	for _, name := range Names {
		s, err := Builtin(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.Backend != name {
			t.Errorf("%s declares %s", name, s.Backend)
		}
	}
	rocm, _ := Builtin("rocm")
	if got := rocm.Architectures.CMake; !reflect.DeepEqual(got, []string{"CMAKE_HIP_ARCHITECTURES", "MLX_ROCM_ARCHITECTURES"}) {
		t.Errorf("rocm architectures go to %v", got)
	}
	if rocm.Toolchain.Env != "ROCM_PATH" || rocm.Toolchain.Default != "/opt/rocm" {
		t.Errorf("rocm toolchain %+v", rocm.Toolchain)
	}
	var dyn []string
	for _, l := range rocm.Link.Dynamic {
		dyn = append(dyn, l.Name)
	}
	for _, want := range []string{"amdhip64", "rocblas", "hiprand", "hiprtc", "hipblaslt", "hipfft"} {
		if !slices.Contains(dyn, want) {
			t.Errorf("rocm link lacks %s: %v", want, dyn)
		}
	}
	if !reflect.DeepEqual(rocm.Conflicts, []string{"cuda", "metal"}) {
		t.Errorf("rocm conflicts %v", rocm.Conflicts)
	}
	defs := map[string]string{}
	for _, d := range rocm.ActiveDefines("linux") {
		defs[d.Name] = d.Value
	}
	if defs["MLX_BUILD_ROCM"] != "ON" || defs["MLX_BUILD_CUDA"] != "OFF" || defs["MLX_BUILD_METAL"] != "OFF" {
		t.Errorf("rocm defines %v", defs)
	}
	metal, _ := Builtin("metal")
	if len(metal.ActiveDefines("linux")) >= len(metal.ActiveDefines("darwin")) {
		t.Errorf("metal turns Metal on off macOS")
	}
	cuda, _ := Builtin("cuda")
	var cudaDyn []string
	for _, l := range cuda.Link.Dynamic {
		cudaDyn = append(cudaDyn, l.Name)
	}
	if !reflect.DeepEqual(cudaDyn, []string{"cudart", "cublas", "cublasLt", "cufft", "cusolver", "cuda", "cudnn", "nvrtc"}) {
		t.Errorf("cuda libs %v", cudaDyn)
	}
	if cuda.Jobs.MemoryPerJobGiB != 5 {
		t.Errorf("cuda memory per job %v", cuda.Jobs.MemoryPerJobGiB)
	}
}

// TestMergeExtend checks each merge rule on a project override.
func TestMergeExtend(t *testing.T) {
	dir := t.TempDir()
	// The source and the overlay are directories of their own: a cache
	// inside either is refused (see TestCacheRootRefused).
	os.MkdirAll(filepath.Join(dir, "mlx"), 0o755)
	os.MkdirAll(filepath.Join(dir, "ov"), 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), `source: { dir: mlx }
backends:
  rocm: { overlay: ov, spec: rocm-extra.yaml, merge: extend }
`)
	testutil.WriteFile(t, filepath.Join(dir, "rocm-extra.yaml"), `description: local ROCm
constraints: { cmake: ">= 3.25" }
defines:
  - { name: MLX_BUILD_TESTS, value: "ON" }
  - { name: MY_FLAG, value: "1" }
link:
  remove: [rocblas, hipblaslt]
  dynamic:
    - { name: hiprand, package: custom }
    - { name: rocsparse }
  search: [/opt/stubs/lib]
rpath: { mode: legacy }
triggers: { env: [MY_ENV, ROCM_PATH] }
`)
	c, err := LoadConfig(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Spec("rocm")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Builtin("rocm")
	if s.Description != "local ROCm" || s.Constraints["cmake"] != ">= 3.25" || s.Constraints["rocm"] != ">= 5.2" {
		t.Errorf("scalars/constraints: %q %v", s.Description, s.Constraints)
	}
	defs := map[string]Define{}
	for _, d := range s.Defines {
		defs[d.Name] = d
	}
	if defs["MLX_BUILD_TESTS"].Value != "ON" || !strings.Contains(defs["MLX_BUILD_TESTS"].Origin, "rocm-extra.yaml:4") {
		t.Errorf("override of MLX_BUILD_TESTS: %+v", defs["MLX_BUILD_TESTS"])
	}
	if defs["MLX_BUILD_ROCM"].Value != "ON" || !strings.Contains(defs["MLX_BUILD_ROCM"].Origin, "configs/rocm.yaml") {
		t.Errorf("built-in define lost its origin: %+v", defs["MLX_BUILD_ROCM"])
	}
	if len(s.Defines) != len(base.Defines)+1 {
		t.Errorf("defines: %d, want %d", len(s.Defines), len(base.Defines)+1)
	}
	var dyn []string
	for _, l := range s.Link.Dynamic {
		dyn = append(dyn, l.Name)
		if l.Name == "hiprand" && l.Package != "custom" {
			t.Errorf("hiprand not replaced in place: %+v", l)
		}
	}
	if want := []string{"amdhip64", "hiprand", "hiprtc", "hipfft", "rocsparse"}; !reflect.DeepEqual(dyn, want) {
		t.Errorf("dynamic = %v, want %v", dyn, want)
	}
	if s.Rpath.Mode != "legacy" || !reflect.DeepEqual(s.Link.Search, []string{"/opt/stubs/lib"}) {
		t.Errorf("rpath %+v search %v", s.Rpath, s.Link.Search)
	}
	if n := strings.Count(strings.Join(s.Triggers.Env, ","), "ROCM_PATH"); n != 1 || !slices.Contains(s.Triggers.Env, "MY_ENV") {
		t.Errorf("triggers not a union: %v", s.Triggers.Env)
	}
	// The built-in spec is not changed by a merge.
	again, _ := Builtin("rocm")
	if !reflect.DeepEqual(again.Defines, base.Defines) {
		t.Error("merge changed the built-in spec")
	}
}

// TestMergeReplace uses the project's spec alone.
func TestMergeReplace(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "mlx"), 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source: { dir: mlx }\nbackends:\n  cpu: { spec: cpu.yaml, merge: replace }\n")
	testutil.WriteFile(t, filepath.Join(dir, "cpu.yaml"), "backend: cpu\nplatforms: [linux]\nlink:\n  static: [{ name: mine }]\n")
	c, err := LoadConfig(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Spec("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Link.Static) != 1 || s.Link.Static[0].Name != "mine" || len(s.Defines) != 0 {
		t.Errorf("replace kept built-in parts: %+v", s)
	}
	testutil.WriteFile(t, filepath.Join(dir, "cpu.yaml"), "backend: rocm\nplatforms: [linux]\n")
	if _, err := c.Spec("cpu"); err == nil || !strings.Contains(err.Error(), `declares backend "rocm"`) {
		t.Errorf("a replace spec for another backend: %v", err)
	}
}

// TestConfigLayers checks env > project file > built-in for the cache root
// and jobs, and the walk up to the project file.
func TestConfigLayers(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "mlx"), 0o755)
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source: { dir: mlx }\n")
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	c, err := LoadConfig(sub, get)
	if err != nil {
		t.Fatal(err)
	}
	if c.CacheRoot.Value != filepath.Join(dir, "target", "mlxbuild") || !strings.HasPrefix(c.CacheRoot.Origin, "built-in") {
		t.Errorf("default cache %+v", c.CacheRoot)
	}
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source: { dir: mlx }\ncache: .cache/mlx\n")
	c, _ = LoadConfig(sub, get)
	if c.CacheRoot.Value != filepath.Join(dir, ".cache", "mlx") || !strings.HasPrefix(c.CacheRoot.Origin, "project ") {
		t.Errorf("project cache %+v", c.CacheRoot)
	}
	env["MLXBUILD_CACHE"] = filepath.Join(dir, "env-cache")
	env["MLXBUILD_JOBS"] = "3"
	c, _ = LoadConfig(sub, get)
	if c.CacheRoot.Value != env["MLXBUILD_CACHE"] || c.CacheRoot.Origin != "env MLXBUILD_CACHE" || c.Jobs.Value != "3" {
		t.Errorf("env layer %+v %+v", c.CacheRoot, c.Jobs)
	}
	env["MLXBUILD_JOBS"] = "many"
	if _, err := LoadConfig(sub, get); err == nil || !strings.Contains(err.Error(), "MLXBUILD_JOBS") {
		t.Errorf("bad MLXBUILD_JOBS: %v", err)
	}
	env["MLXBUILD_JOBS"] = ""
	env["MLXBUILD_CONFIG"] = filepath.Join(dir, "nope.yaml")
	if _, err := LoadConfig(sub, get); err == nil || !strings.Contains(err.Error(), "MLXBUILD_CONFIG") {
		t.Errorf("missing MLXBUILD_CONFIG file: %v", err)
	}
	env["MLXBUILD_CONFIG"] = ""
	if _, err := LoadConfig(t.TempDir(), get); err == nil || !strings.Contains(err.Error(), "no mlxbuild.yaml found") {
		t.Errorf("no project file: %v", err)
	}
}

// TestLibOn: an empty os list means every system; otherwise goos must be
// named exactly.
func TestLibOn(t *testing.T) {
	for _, c := range []struct {
		os   []string
		goos string
		want bool
	}{
		{nil, "linux", true},
		{[]string{"linux"}, "linux", true},
		{[]string{"darwin"}, "linux", false},
		{[]string{"darwin", "linux"}, "linux", true},
		{[]string{"Linux"}, "linux", false},
	} {
		if got := (Lib{Name: "x", OS: c.os}).On(c.goos); got != c.want {
			t.Errorf("Lib{OS: %q}.On(%q) = %v, want %v", c.os, c.goos, got, c.want)
		}
	}
}

// TestMergeCompile: an override adds the bridge's own macros and an include
// directory, replaces a built-in macro's value in place and the standard.
func TestMergeCompile(t *testing.T) {
	base, _ := Builtin("rocm")
	over, err := parseOverride("bridge.yaml", []byte(`compile:
  std: c++20
  include: ["{build}/generated", "{tree}"]
  defines:
    - { name: MLXCEL_BRIDGE_ROCM_BACKEND }
    - { name: MLXBUILD_GPU_BACKEND, value: "1" }
`))
	if err != nil {
		t.Fatal(err)
	}
	s := Merge(base, over)
	if s.Compile.Std != "c++20" {
		t.Errorf("std %q, want the override's c++20", s.Compile.Std)
	}
	if got := strings.Join(s.Compile.Include, " "); got != "{tree} {build} {toolchain.root}/include {build}/generated" {
		t.Errorf("include %q: want the built-in's order first, no duplicate", got)
	}
	var flags []string
	for _, d := range s.ActiveCompileDefines("linux") {
		flags = append(flags, d.Flag())
	}
	if got := strings.Join(flags, " "); got != "MLXBUILD_BACKEND_ROCM MLXBUILD_GPU_BACKEND=1 __HIP_PLATFORM_AMD__ MLXCEL_BRIDGE_ROCM_BACKEND" {
		t.Errorf("defines %q", got)
	}
	if base.Compile.Std != "c++17" || len(base.Compile.Defines) != 3 {
		t.Errorf("Merge changed the built-in spec: %+v", base.Compile)
	}
}

// TestBuiltinSpecsDeclareMLXDownloads: each built-in spec declares every
// FetchContent download MLX at 39886de4 makes for that backend (read from
// its CMake files; nanobind and doctest are for the Python bindings and the
// tests, which the specs turn off), so no build meets the provider's
// "no spec declares it" stop. A metal spec without json would fail on the
// only platform Metal has.
func TestBuiltinSpecsDeclareMLXDownloads(t *testing.T) {
	core := []string{"json", "fmt", "gguflib"}
	want := map[string][]string{
		"cpu":   core,
		"rocm":  core,
		"cuda":  append(append([]string(nil), core...), "cccl", "nvtx3", "cudnn", "cutlass"),
		"metal": append(append([]string(nil), core...), "metal_cpp"),
	}
	for backend, names := range want {
		s, err := Builtin(backend)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range s.Dependencies {
			got = append(got, d.Name)
			if slices.Contains(d.Providers, "cache") && d.SHA256 == "" {
				t.Errorf("%s: %s offers the cache without a hash", backend, d.Name)
			}
		}
		if !reflect.DeepEqual(got, names) {
			t.Errorf("%s declares %v, want %v", backend, got, names)
		}
	}
}
