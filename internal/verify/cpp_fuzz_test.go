package verify

import (
	"bytes"
	"os"
	"testing"
)

// FuzzBlankCpp checks the invariants the source checks rely on: blanking
// keeps every byte offset and newline, only ever writes spaces, and the
// tokenizer's offsets point at the tokens' text.
func FuzzBlankCpp(f *testing.F) {
	f.Add([]byte("int a = 1'000; // c\n/* b */ auto s = R\"x(metal_kernel()\")x\"; char c = '\\'';\n"))
	f.Add([]byte("u8R\"(unterminated\n\"open\n/* open"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, strs := range []bool{false, true} {
			out := blankCpp(src, strs)
			if len(out) != len(src) {
				t.Fatalf("length %d -> %d", len(src), len(out))
			}
			for i := range src {
				if out[i] != src[i] && (out[i] != ' ' || src[i] == '\n') {
					t.Fatalf("byte %d: %q -> %q", i, src[i], out[i])
				}
			}
			if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
				t.Fatal("newlines changed")
			}
			for _, tok := range tokenize(out) {
				if tok.off < 0 || tok.off+len(tok.text) > len(out) || string(out[tok.off:tok.off+len(tok.text)]) != tok.text {
					t.Fatalf("token %q at %d does not match the source", tok.text, tok.off)
				}
			}
		}
	})
}

// FuzzSourceChecks feeds arbitrary source to the kernel-key and wave32
// checks: they must not panic, and every finding must point at a line of
// the file.
func FuzzSourceChecks(f *testing.F) {
	for _, p := range []string{
		"testdata/kernelkeys/clean/mlx/backend/rocm/fused_norm.cpp",
		"testdata/kernelkeys/clean/mlx/backend/cuda/rope_kernel.cpp",
		"testdata/wave32/clean/device/lane_mask.hip",
		"testdata/wave32/clean/jit_kernels.cpp",
		"testdata/wave32/clean/device/warp_reduce.hip",
		"testdata/wave32/clean/device/any_wave.hip",
		"testdata/kernelkeys/modulecache/mlx/backend/rocm/custom_kernel.cpp",
		"testdata/engine/clean/src/lib/mlx-cpp/turbo/fused_norm.cpp",
		"testdata/engine/clean/src/lib/mlxcel-core/cpp/mlx_cxx_kernels.cpp",
		"testdata/engine/clean/src/lib/mlxcel-core/src/layers.rs",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("return metal_kernel(()(;\n} ] ) x = hip_kernel( k(1,2,3,4,5,6\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := bytes.Count(src, []byte("\n")) + 1
		_, ks := checkKernelKeys("f", src)
		ws, _ := checkWave32("f", src)
		_, ms := checkModuleCache("f", src)
		_, _, is := checkTemplateArgInits("f", src)
		ps, _ := portDispatch("f", src, blankCpp(src, true))
		all := append(append(append(append(append(ks, ws...), ms...), is...), ps...), rustGates("f", src)...)
		all = append(all, bareIssues("f", commentsOnly(src))...)
		for _, fd := range all {
			if fd.Line < 1 || fd.Line > lines || fd.Fix == "" {
				t.Fatalf("finding %+v outside lines 1..%d or without a fix", fd, lines)
			}
		}
	})
}

// FuzzCppLiterals checks the tokenizer on source as written (raw strings
// not blanked: R"x( ... )x" with quotes and parentheses inside) and the
// string units the wave32 check reads JIT kernels from: same length, same
// newlines, and only bytes of the source or spaces.
func FuzzCppLiterals(f *testing.F) {
	f.Add([]byte("auto k = R\"(\n  #error \"x\"\n  v = __shfl_xor(v, 1);\n)\" \"tail\";\n"))
	f.Add([]byte("u8R\"d()\" )d\" R\"(\n'1'000\"\\\"\" L'x'"))
	f.Add([]byte("R\"0123456789012345678901(x)0123456789012345678901\""))
	f.Fuzz(func(t *testing.T, src []byte) {
		for i := range src {
			if n := boundName(src, i); !bytes.Contains(src[:i], []byte(n)) {
				t.Fatalf("boundName at %d is %q, not text before it", i, n)
			}
		}
		for _, tok := range tokenize(src) {
			if tok.off < 0 || tok.off+len(tok.text) > len(src) || string(src[tok.off:tok.off+len(tok.text)]) != tok.text {
				t.Fatalf("token %q at %d does not match the source", tok.text, tok.off)
			}
		}
		for _, u := range stringUnits(src, nil, func([]byte, int) bool { return true }) {
			if len(u) != len(src) {
				t.Fatalf("unit length %d, source %d", len(u), len(src))
			}
			for i := range src {
				if (src[i] == '\n') != (u[i] == '\n') || (u[i] != src[i] && u[i] != ' ') {
					t.Fatalf("unit byte %d: %q -> %q", i, src[i], u[i])
				}
			}
		}
	})
}
