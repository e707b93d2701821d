package overlays

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadManifest reads a 100k-entry manifest (the 100k shape's size)
// as a no-op does: allocations per op show the per-entry garbage, if any.
//
//	go test ./overlays -run '^$' -bench ReadManifest -benchmem
func BenchmarkReadManifest(b *testing.B) {
	m := &Manifest{}
	for i := range 100_000 {
		m.entries = append(m.entries, entry{path: fmt.Sprintf("synthetic/d%04d/f%06d.hip", i/100, i), size: int64(256 + i%3840),
			mTime: 1764590000123456789 + int64(i), ino: uint64(1_000_000 + i), kind: kindFile, origin: FromOverlay, srcSize: int64(256 + i%3840),
			srcMTime: 1764590000023456789 + int64(i), srcIno: uint64(2_000_000 + i), cTime: 1764590000123456789 + int64(i), srcCTime: 1764590000023456789 + int64(i)})
		m.entries[i].hash[0], m.entries[i].hash[31] = byte(i), byte(i>>8)
	}
	path := filepath.Join(fastTempDir(b), "tree.manifest")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := m.encode(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if got := readManifest(path); len(got.entries) != len(m.entries) || got.entries[len(m.entries)-1] != m.entries[len(m.entries)-1] {
			b.Fatalf("read %d entries, want %d equal ones", len(got.entries), len(m.entries))
		}
	}
}
