package overlays

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var layerRecords = []string{"README.md", "UPSTREAM", "LOCAL_FIXES.md", "CORE_RESIDUAL.diff"}

// referenceLayers lays out the reference's three overlay directories the
// way its CMake glue applies them (GLUE.md, mlx_apply_source_overlays): the
// listed Metal files of patches/ (each only if present), every file under
// patches/mlx/backend/cpu/ and .../cuda/, then the backend's own: for CUDA
// the flat patches-cuda/*.cpp into mlx/, for ROCm all of patches-rocm/
// (records excepted), last, so it wins.
func referenceLayers(root, backend string) []Layer {
	shared := filepath.Join(root, "patches")
	ls := []Layer{
		{Dir: shared, Optional: true, Files: []string{"mlx/backend/metal/compiled.cpp", "mlx/backend/metal/device.cpp", "mlx/backend/metal/kernels/utils.h", "mlx/backend/metal/quantized.cpp"}},
		{Dir: shared, Files: []string{"mlx/backend/cpu/**"}},
		{Dir: shared, Files: []string{"mlx/backend/cuda/**"}},
	}
	switch backend {
	case "cuda":
		ls = append(ls, Layer{Dir: filepath.Join(root, "patches-cuda"), Files: []string{"*.cpp"}, To: "mlx"})
	case "rocm":
		ls = append(ls, Layer{Dir: filepath.Join(root, "patches-rocm")})
	}
	return ls
}

func writeReferenceOverlays(t *testing.T, root string) {
	writeFiles(t, filepath.Join(root, "patches"), files{
		"mlx/backend/metal/compiled.cpp":    "metal compiled\n",
		"mlx/backend/metal/kernels/utils.h": "metal utils\n",
		"mlx/backend/metal/quantized.cpp":   "metal quantized\n",
		"mlx/backend/metal/not-listed.cpp":  "never copied\n",
		"mlx/backend/cpu/quantized.cpp":     "cpu quantized (shared)\n",
		"mlx/backend/cuda/kernels/x.cu":     "cuda x\n",
		"README.md":                         "the shared overlay\n",
	})
	writeFiles(t, filepath.Join(root, "patches-cuda"), files{
		"ops.cpp":      "cuda ops\n",
		"scan.cpp":     "cuda scan\n",
		"README.md":    "not a .cpp\n",
		"sub/deep.cpp": "not copied: the glob is not recursive\n",
	})
	writeFiles(t, filepath.Join(root, "patches-rocm"), files{
		"CMakeLists.txt":                "rocm top level\n",
		"mlx/backend/rocm/device.cpp":   "rocm device\n",
		"mlx/backend/cpu/quantized.cpp": "cpu quantized (rocm's own)\n",
		"UPSTREAM":                      "commit: x\n",
		"LOCAL_FIXES.md":                "1. **x.**\n",
	})
}

func TestLayerFilesReferenceOrder(t *testing.T) {
	root := t.TempDir()
	writeReferenceOverlays(t, root)
	want := map[string]map[string]string{
		"cuda": {
			"mlx/backend/metal/compiled.cpp":    "patches",
			"mlx/backend/metal/kernels/utils.h": "patches",
			"mlx/backend/metal/quantized.cpp":   "patches",
			"mlx/backend/cpu/quantized.cpp":     "patches",
			"mlx/backend/cuda/kernels/x.cu":     "patches",
			"mlx/ops.cpp":                       "patches-cuda",
			"mlx/scan.cpp":                      "patches-cuda",
		},
		"rocm": {
			"mlx/backend/metal/compiled.cpp":    "patches",
			"mlx/backend/metal/kernels/utils.h": "patches",
			"mlx/backend/metal/quantized.cpp":   "patches",
			"mlx/backend/cpu/quantized.cpp":     "patches-rocm", // ROCm comes last and wins
			"mlx/backend/cuda/kernels/x.cu":     "patches",
			"CMakeLists.txt":                    "patches-rocm",
			"mlx/backend/rocm/device.cpp":       "patches-rocm",
		},
	}
	for backend, w := range want {
		got, err := layerFiles(referenceLayers(root, backend), layerRecords)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(w) {
			t.Errorf("%s: %d files, want %d: %v", backend, len(got), len(w), got)
		}
		for dst, dir := range w {
			src, ok := got[dst]
			if !ok {
				t.Errorf("%s: no %s", backend, dst)
				continue
			}
			if rel, _ := filepath.Rel(root, src.path); !strings.HasPrefix(rel, dir+string(filepath.Separator)) {
				t.Errorf("%s: %s comes from %s, want %s/", backend, dst, rel, dir)
			}
		}
	}
}

func TestLayerFilesNamedFileMissing(t *testing.T) {
	root := t.TempDir()
	writeReferenceOverlays(t, root)
	ls := referenceLayers(root, "cuda")
	ls[0].Optional = false // mlx/backend/metal/device.cpp is not there
	if _, err := layerFiles(ls, layerRecords); err == nil || !strings.Contains(err.Error(), "names mlx/backend/metal/device.cpp, which is not in") {
		t.Errorf("err = %v, want the missing named file", err)
	}
	// A pattern that matches nothing is no error: the layer is empty today.
	ls[0].Optional = true
	ls = append(ls, Layer{Dir: filepath.Join(root, "patches"), Files: []string{"mlx/backend/vulkan/**"}})
	if _, err := layerFiles(ls, layerRecords); err != nil {
		t.Errorf("an empty glob: %v", err)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, rel string
		want     bool
	}{
		{"*.cpp", "ops.cpp", true}, {"*.cpp", "sub/ops.cpp", false},
		{"mlx/backend/cpu/**", "mlx/backend/cpu/quantized.cpp", true},
		{"mlx/backend/cpu/**", "mlx/backend/cpu/gemms/cblas.cpp", true},
		{"mlx/backend/cpu/**", "mlx/backend/cuda/x.cu", false},
		{"**/*.h", "utils.h", true}, {"**/*.h", "a/b/utils.h", true}, {"**/*.h", "a/b/utils.cpp", false},
		{"mlx/backend/metal/compiled.cpp", "mlx/backend/metal/compiled.cpp", true},
		{"mlx/backend/metal/compiled.cpp", "mlx/backend/metal/compiled.cpp.orig", false},
	} {
		if got := Match(tc.pat, tc.rel); got != tc.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tc.pat, tc.rel, got, tc.want)
		}
	}
}

// TestComposeIdempotent composes the ROCm layout twice: the second run
// changes nothing (same inodes and mtimes), a file dropped from a layer
// leaves the composition, a changed source comes through, and Materialize
// over the composition gives pristine + layers.
func TestComposeIdempotent(t *testing.T) {
	root := t.TempDir()
	writeReferenceOverlays(t, root)
	dst := filepath.Join(root, "cache", "rocm", "overlay")
	ls := referenceLayers(root, "rocm")
	if _, err := Compose(ls, layerRecords, dst); err != nil {
		t.Fatal(err)
	}
	first := statIDs(t, dst)
	if len(first) != 7 {
		t.Fatalf("composed %d files: %v", len(first), first)
	}
	if _, err := Compose(ls, layerRecords, dst); err != nil {
		t.Fatal(err)
	}
	for p, id := range statIDs(t, dst) {
		if first[p] != id {
			t.Errorf("%s was rewritten by a second compose", p)
		}
	}
	os.Remove(filepath.Join(root, "patches", "mlx", "backend", "cuda", "kernels", "x.cu"))
	later := time.Now().Add(time.Minute)
	edited := filepath.Join(root, "patches-rocm", "mlx", "backend", "rocm", "device.cpp")
	// An editor that writes a new file and renames it over the old one.
	tmp := edited + ".new"
	if err := os.WriteFile(tmp, []byte("rocm device, edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(tmp, later, later)
	if err := os.Rename(tmp, edited); err != nil {
		t.Fatal(err)
	}
	if _, err := Compose(ls, layerRecords, dst); err != nil {
		t.Fatal(err)
	}
	got := readFiles(t, dst)
	if _, ok := got["mlx/backend/cuda/kernels/x.cu"]; ok {
		t.Error("a file dropped from its layer stayed in the composition")
	}
	if _, err := os.Stat(filepath.Join(dst, "mlx", "backend", "cuda")); err == nil {
		t.Error("the directory the dropped file left empty stayed")
	}
	if got["mlx/backend/rocm/device.cpp"] != "rocm device, edited\n" {
		t.Errorf("edited source not composed: %q", got["mlx/backend/rocm/device.cpp"])
	}
	pristine := filepath.Join(root, "mlx")
	writeFiles(t, pristine, files{"CMakeLists.txt": "upstream top level\n", "mlx/backend/cpu/quantized.cpp": "upstream cpu\n", "mlx/ops.cpp": "upstream ops\n"})
	tree := filepath.Join(root, "cache", "rocm", "tree")
	if _, _, err := Materialize(pristine, dst, tree, filepath.Join(root, "cache", "rocm", "tree.manifest"), nil); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, readFiles(t, tree), files{
		"CMakeLists.txt":                    "rocm top level\n",
		"mlx/ops.cpp":                       "upstream ops\n",
		"mlx/backend/cpu/quantized.cpp":     "cpu quantized (rocm's own)\n",
		"mlx/backend/rocm/device.cpp":       "rocm device, edited\n",
		"mlx/backend/metal/compiled.cpp":    "metal compiled\n",
		"mlx/backend/metal/kernels/utils.h": "metal utils\n",
		"mlx/backend/metal/quantized.cpp":   "metal quantized\n",
	})
	hashes, err := LayerHashes(ls, layerRecords)
	if err != nil {
		t.Fatal(err)
	}
	composed, err := OverlayFiles(dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hashes) != len(composed) {
		t.Fatalf("LayerHashes has %d files, the composition %d", len(hashes), len(composed))
	}
	for p, h := range composed {
		if hashes[p] != h {
			t.Errorf("%s: LayerHashes %s, composition %s", p, hashes[p], h)
		}
	}
}
