package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seed(f *testing.F, name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	return string(data)
}

// FuzzParseConf: no ld.so.conf text panics the parser; every folder it
// gives is absolute and clean, every include non-empty; the seed's
// folders and includes are read as ldconfig reads them.
func FuzzParseConf(f *testing.F) {
	text := seed(f, "ld.so.conf")
	got := parseConf(text)
	want := []confLine{{include: "/etc/ld.so.conf.d/*.conf"}, {include: "conf.d/*.conf"}, {dir: "/opt/rocm/lib"}, {dir: "/opt/rocm/lib64"}, {dir: "/usr/local/cuda/lib64"}}
	if len(got) != len(want) {
		f.Fatalf("parseConf(testdata/ld.so.conf) = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			f.Fatalf("parseConf(testdata/ld.so.conf)[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, l := range parseConf(text) {
			if l.include == "" && (!filepath.IsAbs(l.dir) || filepath.Clean(l.dir) != l.dir || strings.ContainsAny(l.dir, ":,# \t\n")) {
				t.Errorf("folder %q from %q", l.dir, text)
			}
		}
	})
}

// FuzzDefineValue: the value found is an absolute path with no quote,
// backslash or blank in it, and it occurs in the input.
func FuzzDefineValue(f *testing.F) {
	text := seed(f, "build.ninja")
	if v, ok := defineValue(text, "MLX_CCCL_DIR"); !ok || v != "/cache/deps/cccl/include" {
		f.Fatalf("defineValue(testdata/build.ninja) = %q, %v", v, ok)
	}
	f.Add(`-DMLX_CCCL_DIR="/a b" -DMLX_CCCL_DIR=/c`)
	f.Fuzz(func(t *testing.T, text string) {
		v, ok := defineValue(text, "MLX_CCCL_DIR")
		if ok && (!strings.HasPrefix(v, "/") || strings.ContainsAny(v, "\"\\ \t\r\n$") || !strings.Contains(text, v)) {
			t.Errorf("value %q from %q", v, text)
		}
	})
}

// FuzzDecodeManifest: no input panics the decoder; a manifest it accepts
// encodes to one that decodes the same, and names only plain files.
func FuzzDecodeManifest(f *testing.F) {
	seed(f, "manifest.json")
	f.Fuzz(func(t *testing.T, text string) {
		m, err := decodeManifest("m.json", []byte(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "m.json: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		for _, l := range m.Libraries {
			if !plainName(l.Soname) {
				t.Errorf("soname %q accepted", l.Soname)
			}
		}
		again, err := decodeManifest("m.json", m.encode())
		if err != nil || string(again.encode()) != string(m.encode()) {
			t.Errorf("round trip: %v", err)
		}
	})
}
