package records

import (
	"strings"
	"testing"
)

var residualDoc = "# CORE_RESIDUAL.diff: prose\n" +
	"#\n" +
	"# pin: 81ba1c6a0e50a9268b931579c2d4f1158b9aab5a\n" +
	"# fork: 75915908dfe5028335d318b10340313744fd3a8d\n" +
	"# fork_upstream_merge_base: 39886de461d4f014cd60a3a68ad42fd8d776754a\n" +
	"# overlay-sha256: " + hexA + " mlx/ops.cpp\n" +
	"# overlay-sha256: " + hexB + " mlx/io/safetensors.cpp\n" +
	"# note mlx/io/safetensors.cpp: item 1 (core file merges)\n" +
	"\n" +
	"--- a/mlx/io/safetensors.cpp\n" +
	"+++ b/mlx/io/safetensors.cpp\n" +
	"@@ -1,2 +1,2 @@\n" +
	" a\n" +
	"-b\n" +
	"+c\n" +
	"--- a/mlx/ops.cpp\n" +
	"+++ b/mlx/ops.cpp\n" +
	"@@ -3 +3 @@\n" +
	"-x\n" +
	"+y\n"

var (
	hexA = strings.Repeat("a", 64)
	hexB = strings.Repeat("b", 64)
)

func TestParseResidual(t *testing.T) {
	r, probs := ParseResidual([]byte(residualDoc))
	if len(probs) != 0 {
		t.Fatalf("problems on a clean file: %v", probs)
	}
	if r.Pin.Value != "81ba1c6a0e50a9268b931579c2d4f1158b9aab5a" || r.Pin.Line != 3 || r.Fork.Line != 4 || r.Base.Line != 5 {
		t.Errorf("commits = %+v %+v %+v", r.Pin, r.Fork, r.Base)
	}
	if r.Hashes["mlx/ops.cpp"].Value != hexA || r.Hashes["mlx/io/safetensors.cpp"].Line != 7 {
		t.Errorf("hashes = %+v", r.Hashes)
	}
	if n := r.Notes["mlx/io/safetensors.cpp"]; n.Value != "item 1 (core file merges)" || n.Line != 8 {
		t.Errorf("note = %+v", n)
	}
	if len(r.Patches) != 2 || r.Patches[0].Path != "mlx/io/safetensors.cpp" || r.Patches[0].line != 10 || r.Patches[1].Path != "mlx/ops.cpp" || r.Patches[1].line != 16 {
		t.Fatalf("patches = %+v", r.Patches)
	}
	if !strings.HasPrefix(r.Patches[1].Text, "--- a/mlx/ops.cpp\n+++ b/mlx/ops.cpp\n@@") || !strings.HasSuffix(r.Patches[1].Text, "+y\n") {
		t.Errorf("second patch text = %q", r.Patches[1].Text)
	}
	// What Render writes, ParseResidual reads back the same.
	again, probs := ParseResidual(r.Render())
	if len(probs) != 0 || again.Pin != (Field{Key: "pin", Value: r.Pin.Value, Line: again.Pin.Line}) || len(again.Patches) != 2 ||
		again.Patches[0].Text != r.Patches[0].Text || again.Notes["mlx/io/safetensors.cpp"].Value != "item 1 (core file merges)" ||
		!strings.HasPrefix(again.Notes["mlx/ops.cpp"].Value, noteTODO) || again.Hashes["mlx/ops.cpp"].Value != hexA {
		t.Errorf("render and parse again: %+v, %v", again, probs)
	}
}

func TestParseResidualProblems(t *testing.T) {
	doc := "# pin: a\n# pin: b\nstray header\n# overlay-sha256: short mlx/x.cpp\n# note : empty path\n" +
		"# overlay-sha256: " + hexA + " mlx/y.cpp\n# overlay-sha256: " + hexB + " mlx/y.cpp\n" +
		"--- a/mlx/y.cpp\n+++ b/mlx/y.cpp\n@@ -1 +1 @@\n-a\n+b\n--- a/mlx/y.cpp\n+++ b/mlx/y.cpp\n"
	_, probs := ParseResidual([]byte(doc))
	want := []struct {
		line int
		msg  string
	}{{2, "pin given again"}, {3, "neither a `#` line"}, {4, "malformed hash line"}, {5, "malformed note line"}, {7, "a second hash for mlx/y.cpp"}, {13, "a second patch for mlx/y.cpp"}}
	if len(probs) != len(want) {
		t.Fatalf("problems = %v, want %v", probs, want)
	}
	for i, w := range want {
		if probs[i].Line != w.line || !strings.Contains(probs[i].Message, w.msg) || probs[i].Fix == "" {
			t.Errorf("problem %d = %+v, want line %d with %q", i, probs[i], w.line, w.msg)
		}
	}
}

func TestMentions(t *testing.T) {
	l := &Layout{BackendDirs: []string{"mlx/backend/rocm"}, Hashes: map[string]string{
		"CMakeLists.txt": "", "mlx/device.cpp": "", "mlx/backend/rocm/device.cpp": "", "mlx/backend/rocm/CMakeLists.txt": "",
		"mlx/backend/rocm/quantized/qmm.hip": "", "mlx/backend/rocm/sort.hip": "", "mlx/backend/rocm/reduce/reduce.hpp": "",
	}}
	for _, tc := range []struct {
		text, path string
		want       bool
	}{
		{"`mlx/backend/rocm/device.cpp` sets it", "mlx/backend/rocm/device.cpp", true},
		{"`mlx/device.cpp` changed", "mlx/backend/rocm/device.cpp", false},             // a longer path's tail is not a name
		{"`device.cpp` changed", "mlx/backend/rocm/device.cpp", false},                 // two overlay files are named device.cpp
		{"`quantized/qmm.hip` dispatches", "mlx/backend/rocm/quantized/qmm.hip", true}, // backend-relative
		{"`qmm.hip` dispatches", "mlx/backend/rocm/quantized/qmm.hip", true},           // a unique bare name
		{"in `sort.hip`.", "mlx/backend/rocm/sort.hip", true},                          // a sentence's period after it
		{"`sort.hipx` and `mysort.hip`", "mlx/backend/rocm/sort.hip", false},
		{"`mlx/backend/rocm/CMakeLists.txt` compiles", "CMakeLists.txt", false},
		{"the top-level `CMakeLists.txt`", "mlx/backend/rocm/CMakeLists.txt", false}, // not unique
		{"`reduce/reduce.hpp` and `x/reduce/reduce.hpp`", "mlx/backend/rocm/reduce/reduce.hpp", true},
	} {
		if got := l.Mentions(tc.text, tc.path); got != tc.want {
			t.Errorf("Mentions(%q, %s) = %v, want %v", tc.text, tc.path, got, tc.want)
		}
	}
	if got := l.Resolve("quantized/qmm.hip"); got != "mlx/backend/rocm/quantized/qmm.hip" {
		t.Errorf("Resolve(quantized/qmm.hip) = %q", got)
	}
	for _, p := range []string{"src/audio/fft.rs", "mlx/backend/cuda/sort.cu", "tests/wht_op.rs"} {
		if got := l.Resolve(p); got != "" {
			t.Errorf("Resolve(%s) = %q, want \"\" (not an overlay file)", p, got)
		}
	}
}
