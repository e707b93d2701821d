package gcpause

import (
	"math"
	"runtime/debug"
	"testing"
)

// settings reads GOGC and the memory limit without changing them.
func settings() (int, int64) {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p, debug.SetMemoryLimit(-1)
}

func TestForPausesAndRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	before := held()
	resume := For(64 << 20)
	p, l := settings()
	if p != -1 || l < before+64<<20 || l > held()+64<<20 {
		t.Fatalf("paused: GOGC %d, limit %d; want -1 and 64 MiB above the %d bytes held", p, l, before)
	}
	inner := For(1 << 40) // a nested pause changes nothing
	if p2, l2 := settings(); p2 != -1 || l2 != l {
		t.Errorf("nested pause: GOGC %d, limit %d; want -1 and %d", p2, l2, l)
	}
	inner()
	inner() // a second call of the same resume is not a second end
	if p, _ := settings(); p != -1 {
		t.Errorf("after the inner pause ended: GOGC %d; want still off", p)
	}
	resume()
	if p, l := settings(); p != 100 || l != math.MaxInt64 {
		t.Errorf("resumed: GOGC %d, limit %d; want 100 and no limit", p, l)
	}
}

// A lower limit the user set (GOMEMLIMIT) stays, and GOGC=off stays off.
func TestForKeepsTheUsersSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(16 << 20))

	resume := For(64 << 20) // more than the user's 16 MiB limit leaves
	if p, l := settings(); p != -1 || l != 16<<20 {
		t.Errorf("paused: GOGC %d, limit %d; want -1 and the user's 16 MiB", p, l)
	}
	resume()
	if p, l := settings(); p != -1 || l != 16<<20 {
		t.Errorf("resumed: GOGC %d, limit %d; want the user's -1 and 16 MiB", p, l)
	}
}
