package arch

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Agent is one HSA agent as rocminfo lists it.
type Agent struct {
	Number     int    // the "Agent N" header; 0 when the paste had none
	Name       string // the agent's first Name: value ("gfx1151", or a CPU model)
	DeviceType string // "GPU", "CPU", "DSP"...; empty when not listed
	Node       int    // the "Node:" value; -1 when not listed
}

// GPU reports whether the agent is a GPU with a concrete gfx processor name.
// CPU agents (whose names may contain "Radeon"), ISA names
// (amdgcn-amd-amdhsa--gfx1151) and generic targets (gfx11-generic) are not.
func (a Agent) GPU() bool {
	if a.DeviceType != "" && !strings.EqualFold(a.DeviceType, "GPU") {
		return false
	}
	return gfxRe.MatchString(a.Name)
}

// ParseRocminfo reads rocminfo's output. It keys on the "Agent N" headers
// and takes the first "Name:" of each agent as its name (later "Name:" lines
// belong to the agent's ISA list). It does not rely on indentation, so
// pastes with stripped indentation, trailing spaces or CRLF line ends read
// the same. Output without any "Agent N" header (a `rocminfo | grep gfx`
// paste) gives one agent per "Name:" line.
func ParseRocminfo(out []byte) []Agent {
	var agents []Agent
	var cur *Agent
	headers := false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if n, ok := agentHeader(line); ok {
			headers = true
			agents = append(agents, Agent{Number: n, Node: -1})
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
				agents = append(agents, Agent{Name: val, Node: -1})
				cur = &agents[len(agents)-1]
				continue
			}
			if cur != nil && cur.Name == "" {
				cur.Name = val
			}
		case "Device Type":
			if cur != nil && cur.DeviceType == "" {
				cur.DeviceType = val
			}
		case "Node":
			if cur != nil && cur.Node < 0 {
				if n, err := strconv.Atoi(val); err == nil {
					cur.Node = n
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
