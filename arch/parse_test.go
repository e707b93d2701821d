package arch

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// gpuNames returns the sorted, deduplicated GPU agent names and the agent
// numbers they came from.
func gpuNames(agents []agent) ([]string, []int) {
	var names []string
	var nums []int
	for _, a := range agents {
		if a.gpu() {
			names = append(names, a.name)
			nums = append(nums, a.number)
		}
	}
	return dedupe(names, func(a, b string) bool { return a < b }), nums
}

// stripIndent turns a paste into what a chat or issue tracker makes of it:
// no leading or trailing spaces, CRLF line ends.
func stripIndent(b []byte) []byte {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return []byte(strings.Join(lines, "\r\n"))
}

func TestParseRocminfoRecordedOutputs(t *testing.T) {
	cases := []struct {
		fixture string
		gpus    []string
		agents  []int
	}{
		{"rock-not-loaded-cpu-only", nil, nil},
		{"libkmod-error-cpu-agent", nil, nil},
		{"strix-halo-cpu-agent-radeon-name", nil, nil},
		{"strix-halo-gfx1151", []string{"gfx1151"}, []int{2}},
		{"mixed-gfx1201-gfx1151-grep", []string{"gfx1151", "gfx1201"}, []int{0, 0}},
		{"two-7900xtx-agent3", []string{"gfx1100"}, []int{3}},
		{"mi250x-agent16", []string{"gfx90a"}, []int{16}},
		{"gfx803-grep-then-full", []string{"gfx803"}, []int{0, 2}},
		{"isa-lines-only", nil, nil},
		{"mi300x-agent-fragment", []string{"gfx942"}, []int{0}},
		{"two-mi100-full", []string{"gfx908"}, []int{3, 4}},
		{"two-7900xtx-both-agents-excerpt", []string{"gfx1100"}, []int{2, 3}},
		{"eight-mi300x-full", []string{"gfx942"}, []int{3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			raw := readFixture(t, "rocminfo/"+c.fixture+".txt")
			if _, err := os.Stat(filepath.Join("testdata", "rocminfo", c.fixture+".url")); err != nil {
				t.Errorf("fixture has no source URL beside it: %v", err)
			}
			for _, variant := range []struct {
				name string
				data []byte
			}{{"as recorded", raw}, {"indentation stripped, CRLF", stripIndent(raw)}} {
				gpus, nums := gpuNames(parseRocminfo(variant.data))
				if !reflect.DeepEqual(gpus, c.gpus) || !reflect.DeepEqual(nums, c.agents) {
					t.Errorf("%s: GPUs %v from agents %v, want %v from %v", variant.name, gpus, nums, c.gpus, c.agents)
				}
			}
		})
	}
}

func TestRocminfoAgentFields(t *testing.T) {
	agents := parseRocminfo(readFixture(t, "rocminfo/strix-halo-cpu-agent-radeon-name.txt"))
	if len(agents) != 1 {
		t.Fatalf("agents = %+v, want one CPU agent", agents)
	}
	a := agents[0]
	if a.number != 1 || a.deviceType != "CPU" || a.node != 0 || !strings.Contains(a.name, "Radeon") || a.gpu() {
		t.Errorf("CPU agent = %+v (GPU()=%v): want agent 1, CPU, node 0, a name with Radeon, not a GPU", a, a.gpu())
	}
	g := parseRocminfo(readFixture(t, "rocminfo/mi250x-agent16.txt"))
	if len(g) != 1 || g[0].node != 15 || g[0].deviceType != "GPU" {
		t.Errorf("MI250X agents = %+v, want one GPU agent on node 15", g)
	}
}

func TestParseNvidiaSMIRecordedOutputs(t *testing.T) {
	cases := []struct {
		fixture string
		archs   []string
		err     error
	}{
		{"unsupported-field", nil, errNoComputeCap},
		{"single-8.9-with-header", []string{"89"}, nil},
		{"single-6.1-with-header", []string{"61"}, nil},
		{"mixed-titanv-rtx5880", []string{"70", "89"}, nil},
		{"h200x2-noheader", []string{"90a", "90a"}, nil},
		{"driver580-invalid-field", nil, errNoComputeCap},
		{"aitemplate-4x-8.6-noheader", []string{"86", "86", "86", "86"}, nil},
	}
	for _, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			raw := readFixture(t, "nvidia-smi/"+c.fixture+".txt")
			if _, err := os.Stat(filepath.Join("testdata", "nvidia-smi", c.fixture+".url")); err != nil {
				t.Errorf("fixture has no source URL beside it: %v", err)
			}
			for _, variant := range []struct {
				name string
				data []byte
			}{{"as recorded", raw}, {"spaces stripped, CRLF", stripIndent(raw)}} {
				got, err := parseNvidiaSMI(variant.data)
				if !errors.Is(err, c.err) || !reflect.DeepEqual(got, c.archs) {
					t.Errorf("%s: got %v, %v; want %v, %v", variant.name, got, err, c.archs, c.err)
				}
			}
		})
	}
}

func TestSMFromCap(t *testing.T) {
	for in, want := range map[string]string{"8.6": "86", "9.0": "90a", "10.0": "100", "12.0": "120", "7.5": "75", "8.9": "89", "12.1": "121", "10.3": "103", "11.0": "110"} {
		if got, err := smFromCap(in); err != nil || got != want {
			t.Errorf("smFromCap(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"[N/A]", "86", "8.", ".6", "8.10", "x.y", "-1.0", "No devices were found"} {
		if got, err := smFromCap(bad); err == nil {
			t.Errorf("smFromCap(%q) = %q, want an error", bad, got)
		}
	}
}

func TestDecodeGfxTargetVersion(t *testing.T) {
	for v, want := range map[uint64]string{0: "", 90010: "gfx90a", 110501: "gfx1151", 90402: "gfx942",
		100306: "gfx1036", 90012: "gfx90c", 120001: "gfx1201", 80003: "gfx803", 90500: "gfx950"} {
		if got := decodeGfxTargetVersion(v); got != want {
			t.Errorf("DecodeGfxTargetVersion(%d) = %q, want %q", v, got, want)
		}
	}
}

func TestParseKFDProperties(t *testing.T) {
	n, err := parseKFDProperties(readFixture(t, "kfd/raphael-7900xtx/2/properties"))
	if err != nil || n.gfxTargetVersion != 100306 || n.vendorID != 4098 || n.deviceID != 5710 || n.gfx() != "gfx1036" {
		t.Errorf("node 2 = %+v, %v; want gfx_target_version 100306 (gfx1036), vendor 4098, device 5710", n, err)
	}
	if _, err := parseKFDProperties([]byte("gfx_target_version 11o000\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("malformed value: err = %v, want one naming line 1", err)
	}
}

func TestNumberList(t *testing.T) {
	for want, ids := range map[string][]int{"0-7": {0, 1, 2, 3, 4, 5, 6, 7}, "1,2": {2, 1}, "1,3-5,9": {1, 3, 4, 5, 9, 4}, "": nil, "0": {0, 0}} {
		if got := numberList(ids); got != want {
			t.Errorf("numberList(%v) = %q, want %q", ids, got, want)
		}
	}
}
