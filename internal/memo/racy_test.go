package memo

import "testing"

// TestClockOlder: the racy rule, by ctime: strictly older than the clock
// on its file system, a second older on another; no clock trusts nothing.
func TestClockOlder(t *testing.T) {
	c := Clock{OK: true, Dev: 7, Ctime: 10_000_000_000}
	for _, tc := range []struct {
		dev   uint64
		ctime int64
		want  bool
	}{
		{7, 9_999_999_999, true},
		{7, 10_000_000_000, false},
		{7, 10_000_000_001, false},
		{8, 9_500_000_000, false},
		{8, 9_000_000_000, false},
		{8, 8_999_999_999, true},
	} {
		if got := c.Older(tc.dev, tc.ctime); got != tc.want {
			t.Errorf("Older(%d, %d) = %v, want %v", tc.dev, tc.ctime, got, tc.want)
		}
	}
	if (Clock{}).Older(0, 0) {
		t.Error("no clock trusts a file")
	}
}
