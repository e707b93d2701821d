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
		for _, a := range ParseRocminfo(data) {
			if a.GPU() {
				if err := Validate(ROCm, a.Name); err != nil {
					t.Fatalf("GPU agent %+v has an invalid name: %v", a, err)
				}
				if strings.ContainsAny(a.Name, ";$ \t\n") {
					t.Fatalf("GPU agent name %q carries a separator", a.Name)
				}
			}
		}
	})
}

func FuzzParseNvidiaSMI(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		archs, err := ParseNvidiaSMI(data)
		if err != nil && len(archs) > 0 {
			t.Fatalf("error %v with results %v", err, archs)
		}
		for _, a := range archs {
			if err := Validate(CUDA, a); err != nil {
				t.Fatalf("row gave %q: %v", a, err)
			}
		}
	})
}

func FuzzParseKFDProperties(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseKFDProperties(data)
		if err != nil {
			return
		}
		g := n.Gfx()
		if (g == "") != (n.GfxTargetVersion == 0) || (g != "" && !strings.HasPrefix(g, "gfx")) {
			t.Fatalf("gfx_target_version %d decodes to %q", n.GfxTargetVersion, g)
		}
	})
}

func FuzzParseOffloadBundles(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _ := ParseOffloadBundles(data)
		for _, e := range entries {
			if e.Offset > uint64(len(data)) || e.Size > uint64(len(data)) || !printable(e.Triple) {
				t.Fatalf("entry %+v does not fit %d bytes of data", e, len(data))
			}
		}
	})
}

func FuzzParseArchive(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		members, err := ParseArchive(data)
		if err != nil {
			if len(members) > 0 {
				t.Fatalf("error %v with %d members", err, len(members))
			}
			return
		}
		total := 0
		for _, m := range members {
			total += len(m.Data)
		}
		if total > len(data) {
			t.Fatalf("members hold %d bytes of a %d-byte archive", total, len(data))
		}
	})
}
