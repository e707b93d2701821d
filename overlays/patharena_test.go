package overlays

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestPathArenaKeepsStrings: a string cut from the arena keeps its bytes
// when the buffer it came from is overwritten and when later strings fill
// the block and start new ones, and one longer than a block gets a block of
// its own.
func TestPathArenaKeepsStrings(t *testing.T) {
	var a pathArena
	buf := make([]byte, 300)
	var got, want []string
	for i := 0; i < 3*(64<<10)/40; i++ {
		n := copy(buf, fmt.Sprintf("name-%06d-%s", i, strings.Repeat("y", i%30)))
		got = append(got, a.string(buf[:n]))
		want = append(want, string(buf[:n]))
		for j := range buf {
			buf[j] = '!'
		}
	}
	long := bytes.Repeat([]byte("L"), 64<<10+1)
	got, want = append(got, a.string(long)), append(want, string(long))
	long[0] = '!'
	got, want = append(got, a.string([]byte("after"))), append(want, "after")
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("string %d is %.40q, want %.40q", i, got[i], want[i])
		}
	}
	if a.string(nil) != "" {
		t.Error(`string(nil) is not ""`)
	}
}
