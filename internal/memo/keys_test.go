package memo

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// TestKeysUnchangedComparesInPlace: checking a key costs the stat's path
// and nothing per key besides (no key string made, no path unquoted, no
// absent line built): a kept source.dir check holds a hundred keys, and a
// no-op checks it. A key quoted in another spelling than Key's, or a link,
// is still compared as before.
func TestKeysUnchangedComparesInPlace(t *testing.T) {
	dir := t.TempDir()
	var keys []string
	for i := range 50 {
		p := filepath.Join(dir, fmt.Sprintf("f%d", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, Of(p).Key())
		// Folders too, with no absent key: none is kept for skipping.
		if err := os.Mkdir(p+".d", 0o755); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, Of(p+".d").Key())
	}
	if !KeysUnchanged(keys) {
		t.Fatal("nothing changed, yet the keys do not hold")
	}
	if n := testing.AllocsPerRun(20, func() { KeysUnchanged(keys) }); n > float64(len(keys)+2) {
		t.Errorf("%.0f allocations for %d keys, want at most one each (lstat's path) and the buffer", n, len(keys))
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink("f1", link); err != nil {
		t.Fatal(err)
	}
	linkKey := Of(link).Key()
	if !strings.HasSuffix(linkKey, ` -> "f1"`) || !KeysUnchanged([]string{linkKey}) {
		t.Errorf("a link's key %q does not hold", linkKey)
	}
	// `\x2f` is "/" in another spelling: the path reads the same, the key
	// is not Key's line, so it does not hold, as before.
	other := strings.Replace(keys[0], "/", `\x2f`, 1)
	if p, ok := KeyPath(other); !ok || p != filepath.Join(dir, "f0") {
		t.Errorf("KeyPath(%q) = %q, %v", other, p, ok)
	}
	if KeysUnchanged([]string{other}) {
		t.Errorf("a key in another spelling held: %q", other)
	}
	absent := strconv.Quote(filepath.Join(dir, "none")) + " absent"
	if !KeysUnchanged([]string{Of(dir).Key(), absent}) || KeysUnchanged([]string{Of(dir).Key(), absent + "x"}) {
		t.Error("an absent key read wrong")
	}
}
