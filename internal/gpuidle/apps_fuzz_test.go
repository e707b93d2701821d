package gpuidle

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseComputeApps: nvidia-smi's compute-apps CSV of any content gives
// distinct processes with positive pids and names, or an error that quotes
// the line and names the tool; the processes, printed back as nvidia-smi
// does, read back the same. Seeds: testdata/fuzz/FuzzParseComputeApps.
func FuzzParseComputeApps(f *testing.F) {
	f.Fuzz(func(t *testing.T, out string) {
		procs, err := parseComputeApps("nvidia-smi", out)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "nvidia-smi printed ") {
				t.Fatalf("error without the tool and line: %v", err)
			}
			return
		}
		var b strings.Builder
		for i, p := range procs {
			if p.PID <= 0 || p.Name == "" || strings.ContainsAny(p.Name, "\n") {
				t.Fatalf("process %+v", p)
			}
			for _, q := range procs[:i] {
				if q == p {
					t.Fatalf("%+v twice", p)
				}
			}
			fmt.Fprintf(&b, "%d, %s\n", p.PID, p.Name)
		}
		back, err := parseComputeApps("nvidia-smi", b.String())
		if err != nil || !reflect.DeepEqual(back, procs) {
			t.Fatalf("%+v reads back as %+v (%v)", procs, back, err)
		}
	})
}
