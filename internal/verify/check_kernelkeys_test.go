package verify

import (
	"strings"
	"testing"
)

var kernelScope = []string{
	"mlx/backend/cuda/rope_kernel.cpp",
	"mlx/backend/metal/softcap.cpp",
	"mlx/backend/rocm/fused_norm.cpp",
}

func TestKernelKeysClean(t *testing.T) {
	r := mustPass(t, KernelKeys{Root: "testdata/kernelkeys/clean", Files: kernelScope, Count: 3})
	// fast.h holds declarations only; the raw string and the comment that
	// mention factories are not call sites: 4 calls in 3 files.
	if r.Reason != "4 call sites in 3 files, 0 module cache look-ups" {
		t.Errorf("reason = %q, want 4 call sites in 3 files", r.Reason)
	}
}

func TestKernelKeysLaunchWithoutDtype(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new, loc string
	}{
		{"direct variable", "mlx/backend/metal/softcap.cpp", `{{"T", x.dtype()}},`, `{},`, "softcap.cpp:22"},
		{"constant dtype only", "mlx/backend/cuda/rope_kernel.cpp", `{{"T", x.dtype()}, {"N", n}}`, `{{"T", float32}, {"N", n}}`, "rope_kernel.cpp:36"},
		{"variable without dtype", "mlx/backend/rocm/fused_norm.cpp", `targs.emplace_back("T", x.dtype());`, ``, "fused_norm.cpp:32"},
		{"parameter not named dtype", "mlx/backend/rocm/fused_norm.cpp", `{{"T", input_dtype}}`, `{{"N", 4}}`, "fused_norm.cpp:42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, "testdata/kernelkeys/clean")
			plant(t, dir, tc.file, tc.old, tc.new)
			r := mustFind(t, KernelKeys{Root: dir, Files: kernelScope, Count: 3}, tc.loc, "no input dtype in its template_args")
			if len(r.Findings) != 1 {
				t.Errorf("want exactly the planted defect, got:\n%s", findingsText(r))
			}
		})
	}
}

func TestKernelKeysNeverLaunched(t *testing.T) {
	dir := copyTree(t, "testdata/kernelkeys/clean")
	plant(t, dir, "mlx/backend/metal/softcap.cpp", "auto outputs = kernel(", "auto outputs = other(")
	mustFind(t, KernelKeys{Root: dir, Files: kernelScope, Count: 3}, "softcap.cpp:14", "never launched")
}

func TestKernelKeysScope(t *testing.T) {
	dir := copyTree(t, "testdata/kernelkeys/clean")
	writeFile(t, dir, "mlx/backend/rocm/new_kernel.hip",
		"auto k = fast::hip_kernel(\"n\", {}, {}, \"\");\nauto o = k({}, {}, {}, {1,1,1}, {1,1,1}, {{\"T\", a.dtype()}}, std::nullopt, false, {});\n")
	r := mustFind(t, KernelKeys{Root: dir, Files: kernelScope, Count: 3}, "new_kernel.hip", "entered scope")
	if !strings.Contains(findingsText(r), "count: 3 but 4 files") {
		t.Errorf("the count mismatch is not reported:\n%s", findingsText(r))
	}
	// Declaring it makes the check pass again.
	mustPass(t, KernelKeys{Root: dir, Files: append([]string{"mlx/backend/rocm/new_kernel.hip"}, kernelScope...), Count: 4})

	// A file that leaves scope fails too.
	dir = copyTree(t, "testdata/kernelkeys/clean")
	plant(t, dir, "mlx/backend/metal/softcap.cpp", "mx::fast::metal_kernel(", "mx::fast::make_kernel(")
	mustFind(t, KernelKeys{Root: dir, Files: kernelScope, Count: 3}, "softcap.cpp", "left scope")
}

func TestKernelKeysImmediateLaunch(t *testing.T) {
	src := "auto y = fast::metal_kernel(\"k\", {\"x\"}, {\"y\"}, src)(\n  {x}, {x.shape()}, {x.dtype()}, {1, 1, 1}, {1, 1, 1},\n  {{\"N\", 4}}, std::nullopt, false, {});\n"
	n, fs := checkKernelKeys("imm.cpp", []byte(src))
	if n != 1 || len(fs) != 1 || fs[0].Line != 3 || !strings.Contains(fs[0].Message, "no input dtype") {
		t.Fatalf("sites %d, findings %+v; want the launch at line 3 without dtype", n, fs)
	}
	n, fs = checkKernelKeys("imm.cpp", []byte(strings.Replace(src, `{{"N", 4}}`, `{{"T", x.dtype()}}`, 1)))
	if n != 1 || len(fs) != 0 {
		t.Fatalf("sites %d, findings %+v; want a clean launch", n, fs)
	}
}

// TestKernelKeysModuleCache is the real fork's defect in small: the module
// cache is keyed by name + template args while the source depends on the
// input dtypes and on scalar inputs. Keying by a hash of the source, as
// upstream CUDA does, passes; so does a key held in a local variable.
func TestKernelKeysModuleCache(t *testing.T) {
	const file = "mlx/backend/rocm/custom_kernel.cpp"
	r := mustFind(t, KernelKeys{Root: "testdata/kernelkeys/modulecache"}, "custom_kernel.cpp:44", "caches the compiled module by name_, the kernel name made at line 36")
	if f := r.Findings[0]; len(r.Findings) != 1 || !strings.Contains(f.Message, "each input's dtype (line 24)") || !strings.Contains(f.Message, "whether each input is a scalar (line 25)") {
		t.Errorf("want one finding naming both dependencies, got:\n%s", findingsText(r))
	}
	for name, key := range map[string]string{
		"source hash inline":     "fmt::format(\"{}_{:x}\", name_, std::hash<std::string>{}(source_))",
		"source hash in a local": "module_name",
	} {
		t.Run(name, func(t *testing.T) {
			dir := copyTree(t, "testdata/kernelkeys/modulecache")
			plant(t, dir, file, "      s.device,\n      name_,", "      s.device,\n      "+key+",")
			if key == "module_name" {
				plant(t, dir, file, "  auto& s = stream();", "  auto& s = stream();\n  std::string module_name = fmt::format(\"{}_{:x}\", name_, std::hash<std::string>{}(source_));")
			}
			r := mustPass(t, KernelKeys{Root: dir})
			if !strings.HasSuffix(r.Reason, ", 1 module cache look-up") {
				t.Errorf("reason = %q: the look-up was not seen", r.Reason)
			}
		})
	}
	// A name that carries the input dtypes (Metal's way) still misses the
	// scalar inputs.
	dir := copyTree(t, "testdata/kernelkeys/modulecache")
	plant(t, dir, file, "template_arguments_hash(template_args);\n", "template_arguments_hash(template_args);\n    for (auto& in : inputs) kernel_name += get_type_string(in.dtype());\n")
	r = mustFind(t, KernelKeys{Root: dir}, "custom_kernel.cpp:45", "whether each input is a scalar")
	if strings.Contains(r.Findings[0].Message, "dtype (line") {
		t.Errorf("a name keyed on dtypes is reported for dtypes: %s", r.Findings[0].Message)
	}
}

// TestKernelKeysPinnedModuleCacheFile: the real fork's custom_kernel.cpp
// defines hip_kernel and calls none, but holds the module cache look-up the
// rule checks. Pinned in files: with its count, it is in scope: the one
// finding is the JIT-key defect, with no "left scope" or count line beside it.
func TestKernelKeysPinnedModuleCacheFile(t *testing.T) {
	c := KernelKeys{Root: "testdata/kernelkeys/modulecache", Files: []string{"mlx/backend/rocm/custom_kernel.cpp"}, Count: 1}
	r := mustFind(t, c, "custom_kernel.cpp:44", "caches the compiled module by name_")
	if len(r.Findings) != 1 {
		t.Errorf("want only the JIT-key finding, got:\n%s", findingsText(r))
	}
}
