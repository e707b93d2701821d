package overlays

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// FuzzReadManifest: a manifest file of any content reads as a sorted list
// of entries or as empty (it is only a cache of hashes), never a panic;
// what was read writes back and reads back identically, whatever bytes the
// paths hold. Seeds (testdata/fuzz/FuzzReadManifest) include a manifest
// Materialize wrote on this machine for names with a space and a tab.
func FuzzReadManifest(f *testing.F) {
	dir := fastTempDir(f) // tmpfs: the disk makes each write cost milliseconds
	path := filepath.Join(dir, "tree.manifest")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m := readManifest(path)
		if !slices.IsSortedFunc(m.Entries, func(a, b Entry) int { return comparePaths(a.Path, b.Path) }) {
			t.Fatalf("entries out of order: %+v", m.Entries)
		}
		if len(m.Entries) == 0 {
			return
		}
		for _, e := range m.Entries {
			if e.Size < 0 || e.SrcSize < 0 {
				t.Fatalf("negative size read from %q: %+v", data, e)
			}
		}
		var buf bytes.Buffer
		if err := m.encode(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		again := readManifest(path)
		if !reflect.DeepEqual(again.Entries, m.Entries) {
			t.Fatalf("entries %+v\nread back as %+v\nfrom %q", m.Entries, again.Entries, buf.Bytes())
		}
	})
}

// FuzzParseUint: the manifest's decimal parser agrees with strconv on every
// input of up to 19 bytes (and refuses longer ones), digits or not.
func FuzzParseUint(f *testing.F) {
	for _, s := range []string{"0", "12345678", "1764590000123456789", "9999999999999999999", "1234567/", "12345678:", "-1", "", "00000000000000000001", "123456789012\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseUint(b)
		want, err := strconv.ParseUint(string(b), 10, 64)
		valid := err == nil && len(b) > 0 && len(b) <= 19 && !bytes.ContainsAny(b, "+-_")
		if ok != valid || ok && got != want {
			t.Fatalf("parseUint(%q) = %d, %v; strconv: %d, %v", b, got, ok, want, err)
		}
	})
}
