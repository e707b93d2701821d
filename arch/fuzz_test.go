package arch

import (
	"strings"
	"testing"
)

// The fuzz targets' seeds live in testdata/fuzz/<name>/ (recorded outputs
// and edge cases); `go test` runs them as regression cases, and
// `go test -fuzz=FuzzParseRocminfo -fuzztime=60s ./arch` explores further.

func FuzzParseRocminfo(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range parseRocminfo(data) {
			if a.gpu() {
				if err := validate(ROCm, a.name); err != nil {
					t.Fatalf("GPU agent %+v has an invalid name: %v", a, err)
				}
				if strings.ContainsAny(a.name, ";$ \t\n") {
					t.Fatalf("GPU agent name %q carries a separator", a.name)
				}
			}
		}
	})
}

func FuzzParseNvidiaSMI(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		archs, err := parseNvidiaSMI(data)
		if err != nil && len(archs) > 0 {
			t.Fatalf("error %v with results %v", err, archs)
		}
		for _, a := range archs {
			if err := validate(CUDA, a); err != nil {
				t.Fatalf("row gave %q: %v", a, err)
			}
		}
	})
}

func FuzzParseKFDProperties(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseKFDProperties(data)
		if err != nil {
			return
		}
		g := n.gfx()
		if (g == "") != (n.gfxTargetVersion == 0) || (g != "" && !strings.HasPrefix(g, "gfx")) {
			t.Fatalf("gfx_target_version %d decodes to %q", n.gfxTargetVersion, g)
		}
	})
}

func FuzzParseOffloadBundles(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _ := parseOffloadBundles(data)
		for _, e := range entries {
			if e.offset > uint64(len(data)) || e.size > uint64(len(data)) || !printable(e.triple) {
				t.Fatalf("entry %+v does not fit %d bytes of data", e, len(data))
			}
		}
	})
}

func FuzzParseArchive(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := parseArchive(data)
		if err != nil {
			if len(members) > 0 {
				t.Fatalf("error %v with %d members", err, len(members))
			}
			return
		}
		total := 0
		for _, m := range members {
			total += len(m.data)
		}
		if total > len(data) {
			t.Fatalf("members hold %d bytes of a %d-byte archive", total, len(data))
		}
	})
}
