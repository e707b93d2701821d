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
// of entries and kept listings or as empty (it is only a cache), never a
// panic; what was read writes back and reads back identically, whatever
// bytes the paths hold; a kept listing decodes to sorted names or is
// refused. Seeds (testdata/fuzz/FuzzReadManifest) include a manifest
// Materialize wrote on this machine for names with a space and a tab (v4)
// and one with the example fixture's kept listings (v5).
func FuzzReadManifest(f *testing.F) {
	dir := fastTempDir(f) // tmpfs: the disk makes each write cost milliseconds
	path := filepath.Join(dir, "tree.manifest")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m := readManifest(path)
		if !slices.IsSortedFunc(m.entries, func(a, b entry) int { return comparePaths(a.path, b.path) }) {
			t.Fatalf("entries out of order: %+v", m.entries)
		}
		for i := range m.dirs {
			var lists [sides][]dirEnt
			if !m.dirs[i].decode(&lists, [sides]bool{true, true, true}) {
				continue
			}
			for side, l := range lists {
				if !m.dirs[i].has[side] && len(l) > 0 {
					t.Fatalf("names on a side the record does not keep: %+v", m.dirs[i])
				}
				for j := range l {
					if !isName(l[j].name) || j > 0 && l[j-1].name >= l[j].name {
						t.Fatalf("decoded listing not sorted names: %+v", l)
					}
				}
			}
		}
		if len(m.entries) == 0 && len(m.dirs) == 0 {
			return
		}
		for _, e := range m.entries {
			if e.size < 0 || e.srcSize < 0 {
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
		if !reflect.DeepEqual(again.entries, m.entries) {
			t.Fatalf("entries %+v\nread back as %+v\nfrom %q", m.entries, again.entries, buf.Bytes())
		}
		if !reflect.DeepEqual(again.dirs, m.dirs) {
			t.Fatalf("listings %+v\nread back as %+v\nfrom %q", m.dirs, again.dirs, buf.Bytes())
		}
	})
}
