package fileid

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKeyFollowsChanges checks that every kind of change a cache must see
// gives a new identity and a new key, and that looking again without a
// change gives the same ones.
func TestKeyFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	prev := Of(f)
	if Of(f) != prev || Of(f).Key() != prev.Key() || !prev.Unchanged() {
		t.Fatalf("looking twice differs: %+v, %+v", prev, Of(f))
	}
	step := func(what string) {
		t.Helper()
		cur := Of(f)
		if cur == prev || cur.Key() == prev.Key() || prev.Unchanged() {
			t.Errorf("%s: identity or key unchanged (%s)", what, cur.Key())
		}
		prev = cur
	}
	write("two")
	step("a rewrite of the same size")
	st, _ := os.Stat(f)
	write("tre")
	if err := os.Chtimes(f, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	step("an in-place edit that restores the mtime")
	if err := os.WriteFile(f+".new", []byte("tre"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f+".new", f); err != nil {
		t.Fatal(err)
	}
	step("a rename over it")
	if err := os.Chmod(f, 0o755); err != nil {
		t.Fatal(err)
	}
	step("a mode change")
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	step("removal")
	if !prev.Absent {
		t.Errorf("a removed file is not absent: %+v", prev)
	}
	if err := os.Symlink("a", f); err != nil {
		t.Fatal(err)
	}
	step("a symlink in its place")
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("bb", f); err != nil {
		t.Fatal(err)
	}
	cur := Of(f)
	if cur.Link != "bb" || cur.Key() == prev.Key() {
		t.Errorf("a retargeted symlink: %+v, key %s", cur, cur.Key())
	}
}
