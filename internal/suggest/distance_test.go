package suggest

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"gfx9999", "gfx909", 2}, {"gfx1030", "gfx1031", 1}, {"kitten", "sitting", 3}, {"rocm", "rcom", 2}, {"abc", "", 3},
		{strings.Repeat("a", 65), strings.Repeat("a", 65), 0}, {strings.Repeat("a", 65), "a", 99},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
