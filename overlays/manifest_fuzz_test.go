package overlays

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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
