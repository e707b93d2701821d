package memo

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

// TestStatFollowedSeesThroughLinks checks that StatFollowed reads the file
// a link leads to: an edit of the target through the link, or a link
// retargeted, changes it, where Of (the link itself) stays the same.
func TestStatFollowedSeesThroughLinks(t *testing.T) {
	dir := t.TempDir()
	a, b, link := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "link")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("same"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", link); err != nil {
		t.Fatal(err)
	}
	before, ok := StatFollowed(link)
	if !ok || before.Ino != Of(a).Ino || before.Size != 4 {
		t.Fatalf("StatFollowed(link) = %+v, %v; want a's identity %+v", before, ok, Of(a))
	}
	linkBefore := Of(link)
	if err := os.WriteFile(link, []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited, _ := StatFollowed(link)
	if edited == before {
		t.Error("an edit of the target through the link left StatFollowed unchanged")
	}
	if Of(link) != linkBefore {
		t.Fatalf("the link itself changed: %+v", Of(link))
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b", link); err != nil {
		t.Fatal(err)
	}
	if got, _ := StatFollowed(link); got.Ino != Of(b).Ino || got == edited {
		t.Errorf("a retargeted link: StatFollowed = %+v, want b's identity", got)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if _, ok := StatFollowed(link); ok {
		t.Error("a dangling link can be stat-ed")
	}
}
