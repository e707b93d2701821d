package gitrun

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestIntoPlace: fill sees a fresh empty directory beside final; on
// success it becomes final, on failure nothing is left; stale temporary
// directories of final (and only of final, even with glob characters in
// its name) are removed first.
func TestIntoPlace(t *testing.T) {
	root := t.TempDir()
	final := filepath.Join(root, "a[1]*")
	other := filepath.Join(root, "a1x.tmp-keep") // matches an unquoted glob of final
	for _, d := range []string{final + ".tmp", final + ".tmp-old", other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	failed := errors.New("fill failed")
	var seen string
	err := IntoPlace(final, func(tmp string) error {
		seen = tmp
		if ents, err := os.ReadDir(tmp); err != nil || len(ents) != 0 {
			t.Errorf("fill got %s with %d entries (%v), want a new empty directory", tmp, len(ents), err)
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("IntoPlace = %v, want fill's error", err)
	}
	for _, d := range []string{seen, final, final + ".tmp", final + ".tmp-old"} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s exists after a failed fill", d)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another name's directory was removed: %v", err)
	}
	if err := IntoPlace(final, func(tmp string) error { return os.WriteFile(filepath.Join(tmp, "f"), []byte("x"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(final, "f")); err != nil || string(data) != "x" {
		t.Errorf("final holds %q (%v)", data, err)
	}
}
