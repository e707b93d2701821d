package arch

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// agent is one HSA agent as rocminfo lists it.
type agent struct {
	number     int    // the "Agent N" header; 0 when the paste had none
	name       string // the agent's first Name: value ("gfx1151", or a CPU model)
	deviceType string // "GPU", "CPU", "DSP"...; empty when not listed
	node       int    // the "Node:" value; -1 when not listed
}

// gpu reports whether the agent is a GPU with a concrete gfx processor name.
// CPU agents (whose names may contain "Radeon"), ISA names
// (amdgcn-amd-amdhsa--gfx1151) and generic targets (gfx11-generic) are not.
func (a agent) gpu() bool {
	if a.deviceType != "" && !strings.EqualFold(a.deviceType, "GPU") {
		return false
	}
	return gfxProcessorRe.MatchString(a.name)
}

// parseRocminfo reads rocminfo's output. It keys on the "Agent N" headers
// and takes the first "Name:" of each agent as its name (later "Name:" lines
// belong to the agent's ISA list). It does not rely on indentation, so
// pastes with stripped indentation, trailing spaces or CRLF line ends read
// the same. Output without any "Agent N" header (a `rocminfo | grep gfx`
// paste) gives one agent per "Name:" line.
func parseRocminfo(out []byte) []agent {
	var agents []agent
	var cur *agent
	headers := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, ok := agentHeader(line); ok {
			headers = true
			agents = append(agents, agent{number: n, node: -1})
			cur = &agents[len(agents)-1]
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "Name":
			if !headers {
				agents = append(agents, agent{name: val, node: -1})
				cur = &agents[len(agents)-1]
				continue
			}
			if cur != nil && cur.name == "" {
				cur.name = val
			}
		case "Device Type":
			if cur != nil && cur.deviceType == "" {
				cur.deviceType = val
			}
		case "Node":
			if cur != nil && cur.node < 0 {
				if n, err := strconv.Atoi(val); err == nil {
					cur.node = n
				}
			}
		}
	}
	return agents
}

// agentHeader recognizes "Agent 12" (the line between two rows of stars).
func agentHeader(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "Agent ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
