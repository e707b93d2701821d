package flow

import (
	"os"
	"path/filepath"
	"testing"
)

// TestApplyHeadroom: the collector is paused only for a manifest of 2 MiB
// or more (a no-op of a smaller tree ends before its first collection),
// with room for four times the file above 64 MiB.
func TestApplyHeadroom(t *testing.T) {
	d := t.TempDir()
	man := filepath.Join(d, "tree.manifest")
	if _, pause := applyHeadroom(man); pause {
		t.Error("paused for a missing manifest")
	}
	for _, c := range []struct {
		size  int64
		pause bool
	}{{2<<20 - 1, false}, {2 << 20, true}, {13 << 20, true}} {
		f, err := os.Create(man)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(c.size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		headroom, pause := applyHeadroom(man)
		if pause != c.pause || pause && headroom != 64<<20+4*c.size {
			t.Errorf("manifest of %d bytes: headroom %d, pause %v; want pause %v with %d", c.size, headroom, pause, c.pause, 64<<20+4*c.size)
		}
	}
}
