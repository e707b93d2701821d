package arch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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
		{"two-7900xtx-both-agents-excerpt", "gfx1100", "rocminfo agents 2,3", []int{1, 2}, 2},
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
				agents := parseRocminfo(variant.data)
				var nodes []int
				for _, a := range agents {
					if a.gpu() {
						nodes = append(nodes, a.node)
					}
				}
				if len(agents) != c.agents || !reflect.DeepEqual(nodes, c.nodes) {
					t.Errorf("%s: %d agents, GPU nodes %v; want %d agents, GPU nodes %v", variant.name, len(agents), nodes, c.agents, c.nodes)
				}
			}
		})
	}
}

// TestCUDANvidiaSMIRecordedMultiGPU resolves public nvidia-smi outputs of
// hosts with several identical GPUs: one target, every row in the
// provenance.
func TestCUDANvidiaSMIRecordedMultiGPU(t *testing.T) {
	eight := eightH100ComputeCapColumn(t)
	cases := []struct {
		name    string
		data    []byte
		targets string
		source  string
	}{
		{"aitemplate-4x-8.6-noheader", readFixture(t, "nvidia-smi/aitemplate-4x-8.6-noheader.txt"), "86", "nvidia-smi rows 0-3"},
		{"cutlass-8x-h100 compute_cap column", eight, "90a", "nvidia-smi rows 0-7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, variant := range []struct {
				name string
				data []byte
			}{{"as recorded", c.data}, {"spaces stripped, CRLF", stripIndent(c.data)}} {
				file := filepath.Join(t.TempDir(), "out.txt")
				if err := os.WriteFile(file, variant.data, 0o644); err != nil {
					t.Fatal(err)
				}
				bin := t.TempDir()
				fakeTool(t, bin, "nvidia-smi", "/bin/cat '"+file+"'")
				r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(isolated(t, bin))})
				if err != nil || Join(r.Targets) != c.targets || r.Source != c.source {
					t.Errorf("%s: got %v from %q, %v; want %s from %s", variant.name, r.Targets, r.Source, err, c.targets, c.source)
				}
			}
		})
	}
}

// TestParseNvidiaSMINameFirstIsRefused: a `--query-gpu=name,compute_cap`
// paste puts the GPU name where mlxbuild's own query has the capability.
// The parser must refuse it, naming the row, rather than guess a column.
func TestParseNvidiaSMINameFirstIsRefused(t *testing.T) {
	archs, err := parseNvidiaSMI(readFixture(t, "nvidia-smi/cutlass-8x-h100-name-first.txt"))
	if err == nil || archs != nil || !strings.Contains(err.Error(), "row 0") || !strings.Contains(err.Error(), `"name"`) {
		t.Errorf("got %v, %v; want no result and an error naming row 0 and its \"name\" cell", archs, err)
	}
}

// eightH100ComputeCapColumn cuts the compute_cap column out of the recorded
// 8x H100 `name,compute_cap` output (located by its header, as
// `cut -d, -f2` would), giving the rows `--query-gpu=compute_cap
// --format=csv,noheader` prints for the same GPUs. The values are the
// recording's own; only the name column is dropped.
func eightH100ComputeCapColumn(t *testing.T) []byte {
	t.Helper()
	lines := strings.Split(strings.TrimRight(string(readFixture(t, "nvidia-smi/cutlass-8x-h100-name-first.txt")), "\n"), "\n")
	col := -1
	for i, h := range strings.Split(lines[0], ",") {
		if strings.TrimSpace(h) == "compute_cap" {
			col = i
		}
	}
	if col < 0 || len(lines) != 9 {
		t.Fatalf("recorded output has no compute_cap header or not 8 rows: %q", lines)
	}
	var b strings.Builder
	for _, l := range lines[1:] {
		cells := strings.Split(l, ",")
		if len(cells) <= col {
			t.Fatalf("row %q has no column %d", l, col)
		}
		b.WriteString(strings.TrimSpace(cells[col]) + "\n")
	}
	return []byte(b.String())
}
