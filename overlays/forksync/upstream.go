package forksync

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// setUpstream returns UPSTREAM's text with the given keys set: a key that
// exists keeps its line (and everything else keeps its bytes) with the new
// value; a missing key is appended.
func setUpstream(data []byte, set [][2]string) []byte {
	u, _ := records.ParseUpstream(data)
	lines := strings.SplitAfter(string(data), "\n")
	for _, kv := range set {
		f, ok := u.Get(kv[0])
		if !ok {
			if len(lines) > 0 && lines[len(lines)-1] != "" && !strings.HasSuffix(lines[len(lines)-1], "\n") {
				lines[len(lines)-1] += "\n"
			}
			lines = append(lines, kv[0]+": "+kv[1]+"\n")
			continue
		}
		line := lines[f.Line-1]
		end := ""
		for _, e := range []string{"\r\n", "\n"} {
			if strings.HasSuffix(line, e) {
				end = e
				break
			}
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
		lines[f.Line-1] = indent + kv[0] + ": " + kv[1] + end
	}
	return []byte(strings.Join(lines, ""))
}
