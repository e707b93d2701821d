package arch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestROCmRocminfoRecordedMultiGPU runs the whole rocminfo probe on full
// public outputs of hosts with several identical GPUs: every GPU agent must
// be counted in the provenance and the target listed once, whether the
// paste kept its indentation or came through a tracker as unindented CRLF.
func TestROCmRocminfoRecordedMultiGPU(t *testing.T) {
	cases := []struct {
		fixture string
		targets string
		source  string
		nodes   []int // the Node: of each GPU agent, in output order
		agents  int   // every agent, CPUs included
	}{
		{"two-mi100-full", "gfx908", "rocminfo agents 3,4", []int{2, 3}, 4},
		{"eight-mi300x-full", "gfx942", "rocminfo agents 3-10", []int{2, 3, 4, 5, 6, 7, 8, 9}, 10},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			raw := readFixture(t, "rocminfo/"+c.fixture+".txt")
			for _, variant := range []struct {
				name string
				data []byte
			}{{"as recorded", raw}, {"indentation stripped, CRLF", stripIndent(raw)}} {
				file := filepath.Join(t.TempDir(), "out.txt")
				if err := os.WriteFile(file, variant.data, 0o644); err != nil {
					t.Fatal(err)
				}
				bin := t.TempDir()
				fakeTool(t, bin, "rocminfo", "/bin/cat '"+file+"'")
				r, err := ResolveROCm(context.Background(), Options{Env: testEnv(isolated(t, bin))})
				if err != nil || Join(r.Targets) != c.targets || r.Source != c.source || len(r.Warnings) != 0 {
					t.Errorf("%s: got %v from %q (warnings %q), %v; want %s from %s, no warnings",
						variant.name, r.Targets, r.Source, r.Warnings, err, c.targets, c.source)
				}
				agents := ParseRocminfo(variant.data)
				var nodes []int
				for _, a := range agents {
					if a.GPU() {
						nodes = append(nodes, a.Node)
					}
				}
				if len(agents) != c.agents || !reflect.DeepEqual(nodes, c.nodes) {
					t.Errorf("%s: %d agents, GPU nodes %v; want %d agents, GPU nodes %v", variant.name, len(agents), nodes, c.agents, c.nodes)
				}
			}
		})
	}
}
