package overlays

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
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

// parseUintByDigit is the digit-at-a-time parser parseUint replaced, kept
// as the alternative BenchmarkParseUint runs beside it.
func parseUintByDigit(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// BenchmarkParseUint parses a manifest line's eight numbers (sizes, inodes,
// nanosecond times) with parseUint and with parseUintByDigit, interleaved
// in one loop, and reports the ratio.
//
//	go test ./overlays -run '^$' -bench ParseUint
func BenchmarkParseUint(b *testing.B) {
	nums := [][]byte{[]byte("2552"), []byte("1764590000123456789"), []byte("1048577"), []byte("2552"),
		[]byte("1764590000023456789"), []byte("2097153"), []byte("1764590000123456789"), []byte("1764590000023456789")}
	var eight, byDigit time.Duration
	var sum uint64
	for range b.N {
		start := time.Now()
		for range 1000 {
			for _, n := range nums {
				v, _ := parseUint(n)
				sum += v
			}
		}
		mid := time.Now()
		for range 1000 {
			for _, n := range nums {
				v, _ := parseUintByDigit(n)
				sum -= v
			}
		}
		eight, byDigit = eight+mid.Sub(start), byDigit+time.Since(mid)
	}
	if sum != 0 {
		b.Fatal("the two parsers disagree")
	}
	b.ReportMetric(float64(eight.Nanoseconds())/float64(b.N)/8000, "ns/number")
	b.ReportMetric(float64(byDigit.Nanoseconds())/float64(b.N)/8000, "bydigit-ns/number")
	b.ReportMetric(float64(byDigit)/float64(eight), "bydigit/eight")
}
