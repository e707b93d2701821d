package verify

import "testing"

// kernelPortRule is the reference project's rule: a kernel's support
// predicate reads has_kernel_port(<its table>) instead of a platform #ifdef,
// and its dispatch goes through select_kernel_port.
var kernelPortRule = Rule{
	Name:           "kernel-port",
	Files:          []string{"mlx/backend/rocm/kernels/*.cpp"},
	MustContain:    []string{`supports\([^)]*\)\s*const\s*\{\s*return has_kernel_port\(k\w+Ports\);`, `select_kernel_port\(k\w+Ports,`},
	MustNotContain: []string{`^\s*#\s*if(def)?\b.*(__HIP_PLATFORM_AMD__|MLX_USE_ROCM)`},
	Count:          2,
	IgnoreComments: true,
	Why:            "read the port table with has_kernel_port(<table>) and dispatch with select_kernel_port",
}

func TestRulesClean(t *testing.T) {
	mustPass(t, Rules{Root: "testdata/rules/clean", Rules: []Rule{kernelPortRule}})
}

func TestRulesDefects(t *testing.T) {
	dir := copyTree(t, "testdata/rules/clean")
	plant(t, dir, "mlx/backend/rocm/kernels/softmax.cpp", "  return has_kernel_port(kSoftmaxPorts);\n",
		"#ifdef __HIP_PLATFORM_AMD__\n  return true;\n#else\n  return false;\n#endif\n")
	r := mustFind(t, Rules{Root: dir, Rules: []Rule{kernelPortRule}}, "softmax.cpp:6", `rule "kernel-port": contains "#ifdef __HIP_PLATFORM_AMD__"`)
	mustFind(t, Rules{Root: dir, Rules: []Rule{kernelPortRule}}, "softmax.cpp", "does not contain supports")
	if len(r.Findings) != 2 || r.Findings[0].Fix != kernelPortRule.Why {
		t.Errorf("want the #ifdef and the missing predicate, with the rule's why as fix:\n%s", findingsText(r))
	}

	dir = copyTree(t, "testdata/rules/clean")
	plant(t, dir, "mlx/backend/rocm/kernels/rms_norm.cpp", "select_kernel_port(kRMSNormPorts, device(stream())).launch", "launch_directly")
	mustFind(t, Rules{Root: dir, Rules: []Rule{kernelPortRule}}, "rms_norm.cpp", `does not contain select_kernel_port`)

	// A new kernel file changes the count; a rule that selects nothing fails.
	dir = copyTree(t, "testdata/rules/clean")
	writeFile(t, dir, "mlx/backend/rocm/kernels/gelu.cpp", "bool Gelu::supports(const Device& d) const { return has_kernel_port(kGeluPorts); }\nvoid f() { select_kernel_port(kGeluPorts, d); }\n")
	mustFind(t, Rules{Root: dir, Rules: []Rule{kernelPortRule}}, "", "selects 3 files, declared count: 2")
	moved := kernelPortRule
	moved.Files = []string{"mlx/backend/rocm/ports/*.cpp"}
	mustFind(t, Rules{Root: dir, Rules: []Rule{moved}}, "", "selects no file")

	bad := kernelPortRule
	bad.MustContain = []string{"has_kernel_port("}
	mustFind(t, Rules{Root: dir, Rules: []Rule{bad}}, "", "must_contain pattern")
}
