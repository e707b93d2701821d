package memo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestParseKey reads back what Key writes (a folder, a link, an absent
// path, a real file's identity) and refuses every other spelling.
func TestParseKey(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "l")
	if err := os.Symlink("target -> x", link); err != nil {
		t.Fatal(err)
	}
	for _, id := range []ID{
		{Path: "/src/a b", Stat: Stat{Mode: 0o40755, Size: 4096, Mtime: -1, Ctime: 2, Ino: 3, Dev: 1 << 63}},
		{Path: `/a "b"`, Absent: true},
		Of(dir),
		Of(link),
	} {
		got, ok := ParseKey(id.Key())
		if !ok || got != id {
			t.Errorf("ParseKey(%q) = %+v, %v; want %+v", id.Key(), got, ok, id)
		}
	}
	for _, key := range []string{
		``,
		`"relative" absent`,
		`"/a" absent `,
		`"/a" 16877 4096 1 2 3`,
		`"/a" 16877 4096 1 2 3 4 5`,
		`"/a" 16877 4096 01 2 3 4`,
		`"/a" 16877 4096 +1 2 3 4`,
		`"/a"  16877 4096 1 2 3 4`,
		`"/a" 4294967296 4096 1 2 3 4`,
		`"/a" 16877 4096 1 2 3 -4`,
		`"/a" 16877 4096 1 2 3 4 -> `,
		`"/a" 16877 4096 1 2 3 4 -> "x" y`,
		`"/a" 16877 4096 1 2 3 4 -> x`,
		`"/\x61" absent`,
	} {
		if id, ok := ParseKey(key); ok {
			t.Errorf("ParseKey(%q) = %+v, ok; want not ok", key, id)
		}
	}
}

// FuzzParseKey: whatever ParseKey accepts is exactly what Key writes of
// the identity it read.
func FuzzParseKey(f *testing.F) {
	f.Add(`"/src/mlx" 16877 4096 1 2 3 4`)
	f.Add(`"/opt/rocm" absent`)
	f.Fuzz(func(t *testing.T, key string) {
		id, ok := ParseKey(key)
		if ok && id.Key() != key {
			t.Fatalf("ParseKey(%q) accepted %+v, whose key is %q", key, id, id.Key())
		}
	})
}
