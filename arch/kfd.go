package arch

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// defaultKFDTopology is where the amdgpu driver publishes its topology.
const defaultKFDTopology = "/sys/class/kfd/kfd/topology/nodes"

// kfdNode is one node of the KFD topology.
type kfdNode struct {
	id               int    // the node directory's number
	gfxTargetVersion uint64 // 0 on CPU nodes
	vendorID         uint64
	deviceID         uint64
}

// gfx returns the node's processor name, or "" for a CPU node.
func (n kfdNode) gfx() string { return decodeGfxTargetVersion(n.gfxTargetVersion) }

// decodeGfxTargetVersion turns KFD's gfx_target_version into a processor
// name the way ollama does: major = v/10000 in decimal, minor = (v/100)%100
// and stepping = v%100 printed in hex, so 90010 is gfx90a, 110501 gfx1151
// and 90402 gfx942. Zero (a CPU node) gives "".
func decodeGfxTargetVersion(v uint64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("gfx%d%x%x", v/10000, (v/100)%100, v%100)
}

// parseKFDProperties reads one node's properties file: "key value" lines
// with decimal values. Unknown keys are ignored; a malformed value of a key
// the probe uses is an error.
func parseKFDProperties(data []byte) (kfdNode, error) {
	var n kfdNode
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		key, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			continue
		}
		var dst *uint64
		switch key {
		case "gfx_target_version":
			dst = &n.gfxTargetVersion
		case "vendor_id":
			dst = &n.vendorID
		case "device_id":
			dst = &n.deviceID
		default:
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return kfdNode{}, fmt.Errorf("line %d: %s %q is not a decimal number", line, key, strings.TrimSpace(val))
		}
		*dst = v
	}
	if err := sc.Err(); err != nil {
		return kfdNode{}, err
	}
	return n, nil
}

// readKFD reads every numbered node under dir, sorted by number (node 10
// after node 9, not after node 1). Entries that are not numbers are skipped.
func readKFD(dir string) ([]kfdNode, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var nodes []kfdNode
	for _, e := range entries {
		id, err := strconv.Atoi(e.Name())
		if err != nil || id < 0 {
			continue
		}
		path := filepath.Join(dir, e.Name(), "properties")
		// sysfs's files are regular; a FIFO in a fixture named by
		// MLXBUILD_KFD_TOPOLOGY must not hold the probe for ever.
		data, err := (inputfile.File{Path: path, What: "KFD node", Limit: inputfile.ConfigLimit,
			Fix: "point " + envKFD + " at a KFD topology folder of regular files"}).Read(context.Background())
		if err != nil {
			return nil, err
		}
		n, err := parseKFDProperties(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		n.id = id
		nodes = append(nodes, n)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].id < nodes[j].id })
	return nodes, nil
}
