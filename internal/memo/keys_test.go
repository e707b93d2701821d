package memo

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestKeyPath(t *testing.T) {
	for _, c := range []struct {
		key, path string
		ok        bool
	}{
		{`"/usr/bin/cmake" 420 10 1 2 3 4`, "/usr/bin/cmake", true},
		{`"/opt/rocm" absent`, "/opt/rocm", true},
		{`"/a \"b\"" absent`, `/a "b"`, true},
		{`"relative/x" absent`, "relative/x", false},
		{`/usr/bin/cmake 420`, "", false},
		{`"/unterminated`, "", false},
	} {
		p, ok := KeyPath(c.key)
		if ok != c.ok || (ok && p != c.path) {
			t.Errorf("KeyPath(%q) = %q, %v; want %q, %v", c.key, p, ok, c.path, c.ok)
		}
	}
}

// TestKeysUnchanged records a folder, a file in it and a name absent from
// it, then changes each in turn: every change is seen, the absent name's
// too (creating it changes the folder it is in).
func TestKeysUnchanged(t *testing.T) {
	dir := t.TempDir()
	file, missing := filepath.Join(dir, "f"), filepath.Join(dir, "not-yet")
	if err := os.WriteFile(file, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	keys := func() []string { return []string{Of(dir).Key(), Of(file).Key(), Of(missing).Key()} }
	recorded := keys()
	if !KeysUnchanged(recorded) {
		t.Fatal("nothing changed, yet the keys do not hold")
	}
	if KeysUnchanged(append(recorded[:2:2], "not a key")) {
		t.Error("a line that is not a key held")
	}
	time.Sleep(10 * time.Millisecond) // a later mtime on coarse clocks
	if err := os.WriteFile(missing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if KeysUnchanged(recorded) {
		t.Error("a file created where one was recorded absent went unseen")
	}
	// Only the absent name, its folder not recorded: looked at directly.
	if KeysUnchanged(recorded[2:]) {
		t.Error("a file created where one was recorded absent went unseen (folder not recorded)")
	}
	recorded = keys()
	if err := os.WriteFile(file, []byte("bb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if KeysUnchanged(recorded) {
		t.Error("a rewritten file went unseen")
	}
}
