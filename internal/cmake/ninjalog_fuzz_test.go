package cmake

import (
	"strings"
	"testing"
)

// FuzzReadNinjaLog: every entry read is a whole line's (a non-empty output,
// 0 <= start <= end), and the bound over them spans each one and sums an
// edge written on several lines once: never more than the lines' own sum.
func FuzzReadNinjaLog(f *testing.F) {
	f.Add("# ninja log v7\n0\t4000\t1\thip_objs/sort.o\t2e38\n0\t4000\t1\t/b/hip_objs/sort.o\t2e38\n")
	f.Add("# ninja log v5\n12\t30\t0\ta.o\tff\n30\t")
	f.Fuzz(func(t *testing.T, text string) {
		entries := readNinjaLog(strings.NewReader(text))
		var lines int64
		for _, e := range entries {
			if e.output == "" || e.start < 0 || e.end < e.start {
				t.Fatalf("entry %+v from %q", e, text)
			}
			lines += e.end - e.start
		}
		b := boundOf(entries, nil, 2)
		for _, e := range entries {
			if b.Wall < e.took() {
				t.Fatalf("wall %v shorter than the entry %+v", b.Wall, e)
			}
		}
		if b.Sum.Milliseconds() > lines {
			t.Fatalf("sum %v over the lines' own %d ms", b.Sum, lines)
		}
	})
}
