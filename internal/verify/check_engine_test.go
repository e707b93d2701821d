package verify

import (
	"testing"
)

// The engine stand-in (testdata/engine/clean) has the reference engine's
// shapes: launchers reaching kernels through holders and port tables, a
// HIP port as a raw string, Rust gates, a vendored overlay file, a README
// with issue references.
const engine = "testdata/engine/clean"

var engineKernelFiles = []string{
	"src/lib/mlx-cpp/turbo/fused_norm.cpp",
	"src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp",
}

func engineKeys(root string) KernelKeys {
	return KernelKeys{Root: root, Include: []string{"src/lib/**/*.cpp"}, Launches: "initializers", Files: engineKernelFiles, Count: 2}
}

func TestEngineKernelKeys(t *testing.T) {
	r := mustPass(t, engineKeys(engine))
	// sparse_v_sdpa.cpp is Metal only: out of scope although its targs
	// name no dtype.
	if want := "2 template_args initializers in 2 files with 2 cuda_kernel/hip_kernel call sites, 0 module cache look-ups"; r.Reason != want {
		t.Errorf("reason = %q, want %q", r.Reason, want)
	}
	for name, tc := range map[string]struct{ file, old, new, loc string }{
		"inline dtype dropped": {"src/lib/mlx-cpp/turbo/fused_norm.cpp", `{"T", x.dtype()},`, `{"Rows", 1},`, "fused_norm.cpp:43"},
		"local not from dtype": {"src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp", "auto T = x.dtype();", "auto T = 4;", "mlx_cxx_kernels.cpp:38"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyTree(t, engine)
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, engineKeys(dir), tc.loc, "name no input dtype")
			if len(r.Findings) != 1 {
				t.Errorf("want the planted defect only, got:\n%s", findingsText(r))
			}
		})
	}
	// A CUDA port added to the Metal-only launcher brings it into scope:
	// the pinned list and count fail, and so does its dtype-free targs.
	dir := copyTree(t, engine)
	plant(t, dir, "src/lib/mlx-cpp/turbo/sparse_v_sdpa.cpp", `kernel = mlx::core::fast::metal_kernel(`, `kernel = mlx::core::fast::cuda_kernel(`)
	r = mustFind(t, engineKeys(dir), "sparse_v_sdpa.cpp:30", "targs name no input dtype (keys: Dim)")
	mustHave(t, r, "sparse_v_sdpa.cpp", "entered scope")
}

func TestEngineKernelPorts(t *testing.T) {
	c := func(root string) KernelPorts {
		return KernelPorts{Root: root, Helpers: []string{"**/kernel_port.cpp"}, Exclude: []string{"src/lib/mlx-cpp/patches-*/**"}}
	}
	r := mustPass(t, c(engine))
	if want := "3 launcher files (3 support predicates), 1 Rust file"; r.Reason != want {
		t.Errorf("reason = %q, want %q", r.Reason, want)
	}
	for name, tc := range map[string]struct {
		file, old, new, loc, msg string
		findings                 int
	}{
		"backend ternary": {"src/lib/mlx-cpp/turbo/fused_norm.cpp",
			`auto& kernel = select_kernel_port("fused_norm", "the rms_norm graph", fused_norm_ports());`,
			`const bool use_hip = !mlx::core::metal::is_available();
  auto& kernel = use_hip ? get_fused_norm_kernel_hip().get(true) : get_fused_norm_kernel().get(false);`,
			"fused_norm.cpp:42", "chooses a port by testing the backend", 3}, // and both holders reached directly
		"holder reached directly": {"src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp",
			`auto& kernel = engine::select_kernel_port("ssm_step", "the ssm graph", ssm_ports());`,
			`auto& kernel = get_ssm_kernel().get(false);`,
			"mlx_cxx_kernels.cpp:37", "reaches a kernel holder directly", 1},
		"hand-rolled refusal": {"src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp",
			`  auto T = x.dtype();`,
			`  if (!engine::custom_kernels_available()) { throw std::runtime_error("no"); }
  auto T = x.dtype();`,
			"mlx_cxx_kernels.cpp:36", "refuses by hand", 1},
		"predicate not reading its table": {"src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp",
			`bool ssm_kernel_available() { return engine::has_kernel_port(ssm_ports()); }`,
			`bool ssm_kernel_available() { return mlx::core::cu::is_available(); }`,
			"mlx_cxx_kernels.cpp:33", "support predicate ssm_kernel_available does not read its port table", 1},
		"rust gate enumerating backends": {"src/lib/mlxcel-core/src/layers.rs",
			`if ffi::fused_norm_available() {`,
			`if !ffi::metal_is_available() && !crate::cuda_is_available() {`,
			"layers.rs:8", "gate enumerates the backends", 1},
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyTree(t, engine)
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, c(dir), tc.loc, tc.msg)
			if len(r.Findings) != tc.findings {
				t.Errorf("want the planted defect only, got:\n%s", findingsText(r))
			}
		})
	}
	// A gate that tests a third backend as well is not the enumeration.
	dir := copyTree(t, engine)
	plant(t, dir, "src/lib/mlxcel-core/src/layers.rs", `if ffi::fused_norm_available() {`, `if metal_is_available() || cuda_is_available() || rocm_is_available() {`)
	mustFind(t, c(dir), "layers.rs:8", "gate enumerates")
}

func TestEngineLicenseHeaders(t *testing.T) {
	c := func(root string) LicenseHeaders {
		return LicenseHeaders{Root: root, Vendored: []string{"src/lib/mlx-cpp/patches-*/**"}}
	}
	r := mustPass(t, c(engine))
	if r.Reason != "7 owned files" {
		t.Errorf("reason = %q: the vendored file must be skipped, the 7 owned .cpp/.h/.rs under src counted", r.Reason)
	}
	dir := copyTree(t, engine)
	plant(t, dir, "src/lib/mlxcel-core/src/layers.rs", "// Copyright 2026 The mlxbuild authors.\n//\n// Licensed under the Apache License, Version 2.0 (the \"License\");\n", "")
	r = mustFind(t, c(dir), "layers.rs:1", "no licence header")
	if len(r.Findings) != 1 {
		t.Errorf("want one finding, got:\n%s", findingsText(r))
	}
	// The vendored file without the project's header is not a finding;
	// declared owned, it has its own Copyright line and passes too.
	mustPass(t, LicenseHeaders{Root: engine})
}

func TestEngineCrossRefs(t *testing.T) {
	c := func(root string) CrossRefs {
		return CrossRefs{Root: root, Vendored: []string{"src/lib/mlx-cpp/patches-*/**"}, Repo: "lablup/mlxcel"}
	}
	r := mustPass(t, c(engine))
	if r.Reason != "1 vendored file, 8 own files" {
		t.Errorf("reason = %q", r.Reason)
	}
	// A bare number in a vendored comment is the fork's issue.
	dir := copyTree(t, engine)
	plant(t, dir, "src/lib/mlx-cpp/patches-rocm/mlx/backend/rocm/rocm.cpp", "(NripeshN/mlx#12,", "(#12,")
	r = mustFind(t, c(dir), "rocm.cpp:3", "bare issue reference #12")
	if len(r.Findings) != 1 {
		t.Errorf("want one finding, got:\n%s", findingsText(r))
	}
	// In the repository's own files, a bare number on a line about
	// upstream; the fixture under tests/fixtures is left out.
	dir = copyTree(t, engine)
	plant(t, dir, "README.md", "ml-explore/mlx#4273 upstream", "#4273 upstream")
	r = mustFind(t, c(dir), "README.md:5", "bare #4273 on a line about another project: it links to lablup/mlxcel's #4273")
	if len(r.Findings) != 1 {
		t.Errorf("want one finding (tests/fixtures excluded, own #1801 kept), got:\n%s", findingsText(r))
	}
	// A number the file also writes as the repository's own is its own.
	dir = copyTree(t, engine)
	plant(t, dir, "README.md", "ml-explore/mlx#4273 upstream.", "ml-explore/mlx#4273 upstream; rejected in #2183 to stay with upstream (lablup/mlxcel#2183).")
	mustPass(t, c(dir))
	// Code in a vendored file is not a comment: `#123` there is no reference.
	dir = copyTree(t, engine)
	plant(t, dir, "src/lib/mlx-cpp/patches-rocm/mlx/backend/rocm/rocm.cpp", "return true; }", "return sizeof(\"#123\") > 0; }")
	mustPass(t, c(dir))
}

func TestEngineWave32(t *testing.T) {
	r := mustPass(t, Wave32{Root: engine, Exclude: []string{"src/lib/mlx-cpp/patches-*/**"}})
	if want := "1 of 6 files use lanes: 1 guarded wave32, 0 for any wave size, 1 of these JIT kernels in strings"; r.Reason != want {
		t.Errorf("reason = %q, want %q", r.Reason, want)
	}
}

// TestCrossRefsQualifierOnTheLineAbove: the real fork's rope.hip wraps
// "(Port of ml-explore/mlx" / "// PR #3704, ...)" over two lines of one
// comment; the qualifier above counts, as the reference reads it. A bare
// number under a line that names no repository, or under code, does not.
func TestCrossRefsQualifierOnTheLineAbove(t *testing.T) {
	dir := t.TempDir()
	rope := "mlx/backend/rocm/rope.hip"
	writeFile(t, dir, rope, `  // dims_ channels IN PLACE and leave the tail untouched. (Port of ml-explore/mlx
  // PR #3704, "RoPE without copy".)
  if (dims_ < D) {
`)
	c := CrossRefs{Root: dir, Vendored: []string{"mlx/**"}}
	mustPass(t, c)
	plant(t, dir, rope, "(Port of ml-explore/mlx", "(Port of the upstream change")
	mustFind(t, c, "rope.hip:2", "bare issue reference #3704")
	writeFile(t, dir, rope, "  int x = f(ml-explore/mlx);\n  // PR #3704\n")
	mustFind(t, c, "rope.hip:2", "bare issue reference #3704")
}

// TestEngineKernelPortsWavefront: the reference's rules 5 and 6, in the
// shapes of its check_kernel_port_dispatch_test.sh: a table marked
// .rocm_any_wave_size = true whose HIP kernel shuffles fails, one whose
// kernel does not passes; the test seam called from production Rust
// (src/models/wave.rs) or from C++ fails, from tests/ it passes.
func TestEngineKernelPortsWavefront(t *testing.T) {
	c := func(root string) KernelPorts {
		return KernelPorts{Root: root, Helpers: []string{"**/kernel_port.cpp"}, Exclude: []string{"src/lib/mlx-cpp/patches-*/**"}}
	}
	kernels := "src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp"
	mark := func(t *testing.T, hip string) string {
		dir := copyTree(t, engine)
		plant(t, dir, kernels, "      .cuda = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_ssm_kernel_cuda().get(true); },\n",
			"      .cuda = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_ssm_kernel_cuda().get(true); },\n      .rocm_any_wave_size = true,\n")
		plant(t, dir, kernels, "SsmHolder& get_ssm_kernel() {", "constexpr const char* SSM_HIP_SOURCE = R\"(\n"+hip+"\n)\";\nSsmHolder& get_ssm_kernel() {")
		return dir
	}
	mustPass(t, c(mark(t, "  y[i] = x[i] * 2.0f;")))
	r := mustFind(t, c(mark(t, "  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor(acc, o, 32);")), "mlx_cxx_kernels.cpp:31", "marks a port table any-wave (.rocm_any_wave_size = true), but the HIP kernel in this file works across lanes")
	if len(r.Findings) != 1 {
		t.Errorf("want the mark only, got:\n%s", findingsText(r))
	}

	dir := copyTree(t, engine)
	writeFile(t, dir, "src/models/wave.rs", "pub fn pretend_wave32() {\n    mlxcel_core::set_rocm_port_warp_size_for_tests(32);\n}\n")
	mustFind(t, c(dir), "src/models/wave.rs:2", "calls set_rocm_port_warp_size_for_tests outside a test")
	dir = copyTree(t, engine)
	plant(t, dir, "src/lib/mlx-cpp/turbo/kernel_port.cpp", "namespace engine {", "namespace engine {\nstatic int forced = (set_rocm_port_warp_size_for_tests(32), 0);")
	mustFind(t, c(dir), "kernel_port.cpp:10", "calls set_rocm_port_warp_size_for_tests outside its definition")
	dir = copyTree(t, engine)
	writeFile(t, dir, "tests/rocm_wave64_refusal.rs", "#[test]\nfn wave64() {\n    mlxcel_core::set_rocm_port_warp_size_for_tests(64);\n}\n")
	writeFile(t, dir, "src/lib/mlxcel-core/src/port_tests.rs", "fn t() { crate::set_rocm_port_warp_size_for_tests(64); }\n")
	writeFile(t, dir, "src/lib/mlxcel-core/src/bridge.rs", "extern \"C++\" {\n    fn set_rocm_port_warp_size_for_tests(warp_size: i32);\n}\n")
	writeFile(t, dir, "src/lib/mlx-cpp/turbo/gpu_backend.cpp", "void set_rocm_port_warp_size_for_tests(int warp_size) {\n  override_ = warp_size;\n}\n")
	mustPass(t, c(dir))
}
