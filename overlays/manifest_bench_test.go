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
		m.Entries = append(m.Entries, Entry{Path: fmt.Sprintf("synthetic/d%04d/f%06d.hip", i/100, i), Size: int64(256 + i%3840),
			MTime: 1764590000123456789 + int64(i), Ino: uint64(1_000_000 + i), Kind: KindFile, Origin: FromOverlay, SrcSize: int64(256 + i%3840),
			SrcMTime: 1764590000023456789 + int64(i), SrcIno: uint64(2_000_000 + i), CTime: 1764590000123456789 + int64(i), SrcCTime: 1764590000023456789 + int64(i)})
		m.Entries[i].Hash[0], m.Entries[i].Hash[31] = byte(i), byte(i>>8)
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
		if got := readManifest(path); len(got.Entries) != len(m.Entries) || got.Entries[len(m.Entries)-1] != m.Entries[len(m.Entries)-1] {
			b.Fatalf("read %d entries, want %d equal ones", len(got.Entries), len(m.Entries))
		}
	}
}
