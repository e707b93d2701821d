package proc

import "testing"

func TestParseStat(t *testing.T) {
	for in, want := range map[string][2]int{
		"42 (sleep) S 7 42 42 0 -1":          {7, 'S'},
		"43 (a) b (c)) Z 1 43 43 0 -1":       {1, 'Z'},
		"44 (my prog) R 100 44 44 0 -1 4194": {100, 'R'},
	} {
		ppid, state, ok := parseStat([]byte(in))
		if !ok || ppid != want[0] || int(state) != want[1] {
			t.Errorf("parseStat(%q) = %d %c %v", in, ppid, state, ok)
		}
	}
	for _, bad := range []string{"", "42 sleep S 7", "42 (x) S", "42 (x) SS 7", "42 (x) S seven"} {
		if _, _, ok := parseStat([]byte(bad)); ok {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}
