package memo

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFoldersStatAsPaths: through Folders, every kind of path gives what
// StatFollowed gives by the whole path (a file, a link to it, a dangling
// link, an absent file, a file under an absent or a linked folder, a folder
// itself, a path ending in a slash), in an order that leaves and comes back
// to folders, and a file changed in a folder already open is seen changed.
func TestFoldersStatAsPaths(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	write(filepath.Join(a, "f"), "one")
	write(filepath.Join(b, "g"), "two")
	for _, l := range [][2]string{{"f", filepath.Join(a, "link")}, {"nowhere", filepath.Join(a, "dangling")}, {a, filepath.Join(dir, "alink")}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{
		filepath.Join(a, "f"), filepath.Join(a, "link"), filepath.Join(a, "dangling"), filepath.Join(a, "absent"),
		filepath.Join(b, "g"), filepath.Join(dir, "gone", "x"), filepath.Join(dir, "alink", "f"), a, a + "/",
		filepath.Join(a, "f"), filepath.Join(b, "g"), filepath.Join(a, "f", "under-a-file"), "relative-absent",
	}
	var folders Folders
	defer folders.Close()
	check := func(when string) {
		t.Helper()
		for _, p := range paths {
			want, wantOK := StatFollowed(p)
			got, ok := folders.StatFollowed(p)
			if ok != wantOK || got != want {
				t.Errorf("%s: %s through Folders is %+v, %v; by path %+v, %v", when, p, got, ok, want, wantOK)
			}
		}
	}
	check("at first")
	before, _ := folders.StatFollowed(filepath.Join(a, "f"))
	write(filepath.Join(a, "f.new"), "three!")
	if err := os.Rename(filepath.Join(a, "f.new"), filepath.Join(a, "f")); err != nil {
		t.Fatal(err)
	}
	if after, ok := folders.StatFollowed(filepath.Join(a, "f")); !ok || after == before {
		t.Errorf("a file renamed over in the open folder: %+v, %v; it was %+v", after, ok, before)
	}
	check("after a change")
}
