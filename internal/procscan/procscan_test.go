package procscan

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for in, want := range map[string]Proc{
		"42 (sleep) S 7 42 42 0 -1":          {PPID: 7, State: 'S'},
		"43 (a) b (c)) Z 1 43 43 0 -1":       {PPID: 1, State: 'Z'},
		"44 (my prog) R 100 44 44 0 -1 4194": {PPID: 100, State: 'R'},
	} {
		if got, ok := ParseStat([]byte(in)); !ok || got != want {
			t.Errorf("ParseStat(%q) = %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "42 sleep S 7", "42 (x) S", "42 (x) SS 7", "42 (x) S seven"} {
		if _, ok := ParseStat([]byte(bad)); ok {
			t.Errorf("ParseStat(%q) accepted", bad)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (sleep) S 7 42 42 0 -1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ok := ParseStat(data)
		if ok && (p.State == ' ' || p.State == ')') {
			t.Fatalf("%q gave state %q", data, p.State)
		}
	})
}

// TestMarkedFindsAMarkedChild starts a real sleep with a marker variable and
// one without, and finds exactly the first, with this process as its parent.
func TestMarkedFindsAMarkedChild(t *testing.T) {
	marker := "PROCSCAN_TEST=" + time.Now().Format(time.RFC3339Nano)
	marked := exec.Command("sleep", "30")
	marked.Env = append(os.Environ(), marker)
	plain := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{marked, plain} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Wait()
		defer c.Process.Kill()
	}
	got := Marked(marker)
	if !slices.Equal(got, []int{marked.Process.Pid}) {
		t.Fatalf("Marked = %v (%s), want [%d]", got, Describe(got), marked.Process.Pid)
	}
	if p, ok := Stat(marked.Process.Pid); !ok || p.PPID != os.Getpid() || !p.Alive() {
		t.Errorf("Stat = %+v %v", p, ok)
	}
}
