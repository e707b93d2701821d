package arch

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// bundleMagic starts every uncompressed clang offload bundle; HIP objects,
// libraries and executables carry one per translation unit (in .hip_fatbin).
const bundleMagic = "__CLANG_OFFLOAD_BUNDLE__"

// compressedMagic starts a compressed bundle (clang --offload-compress,
// default in newer ROCm); its entry list is inside the compressed data.
const compressedMagic = "CCOB"

// bundleEntry is one entry of an offload bundle.
type bundleEntry struct {
	triple string // e.g. "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" or "host-x86_64-unknown-linux"
	offset uint64 // from the start of the bundle
	size   uint64
}

// target returns the GPU target ID of an amdgcn entry ("gfx90a:xnack-"),
// or "" for host entries and other triples.
func (e bundleEntry) target() string {
	if !strings.Contains(e.triple, "amdgcn-amd-amdhsa") {
		return ""
	}
	_, id, ok := strings.Cut(e.triple, "--")
	if !ok {
		return ""
	}
	return id
}

// parseOffloadBundles finds every uncompressed offload bundle in data and
// reads its entry table: after the magic, a little-endian uint64 count,
// then per entry uint64 offset, uint64 size, uint64 triple length and the
// triple. A table that does not fit, or whose entries point past the end of
// data, is skipped, not trusted in part. The
// second result counts compressed bundles, whose targets cannot be read
// without decompressing them.
func parseOffloadBundles(data []byte) (entries []bundleEntry, compressed int) {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(bundleMagic))
		if j < 0 {
			break
		}
		start := i + j
		if es, ok := parseBundleTable(data[start:]); ok {
			entries = append(entries, es...)
		}
		i = start + len(bundleMagic)
	}
	compressed = bytes.Count(data, []byte(compressedMagic+"\x02\x00")) + bytes.Count(data, []byte(compressedMagic+"\x03\x00"))
	return entries, compressed
}

func parseBundleTable(b []byte) ([]bundleEntry, bool) {
	p := len(bundleMagic)
	u64 := func() (uint64, bool) {
		if p+8 > len(b) {
			return 0, false
		}
		v := binary.LittleEndian.Uint64(b[p:])
		p += 8
		return v, true
	}
	n, ok := u64()
	if !ok || n == 0 || n > 4096 {
		return nil, false
	}
	out := make([]bundleEntry, 0, n)
	for k := uint64(0); k < n; k++ {
		off, ok1 := u64()
		size, ok2 := u64()
		tl, ok3 := u64()
		if !ok1 || !ok2 || !ok3 || tl == 0 || tl > 1024 || uint64(p)+tl > uint64(len(b)) ||
			off > uint64(len(b)) || size > uint64(len(b))-off {
			return nil, false
		}
		triple := string(b[p : p+int(tl)])
		p += int(tl)
		if !printable(triple) {
			return nil, false
		}
		out = append(out, bundleEntry{triple: triple, offset: off, size: size})
	}
	return out, true
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// cudaFatbinMagic starts an NVIDIA fat binary (0xBA55ED50, little-endian).
var cudaFatbinMagic = []byte{0x50, 0xed, 0x55, 0xba}
