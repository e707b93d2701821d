package records

import "fmt"

// Problem is one defect found while reading a records file.
type Problem struct {
	Line    int    // 1-based line number; 0 when the problem concerns the whole file
	Message string // what is wrong
	Fix     string // what to do about it
}

// String renders the problem as "line N: message".
func (p Problem) String() string {
	if p.Line == 0 {
		return p.Message
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Message)
}

// Names are the records files an overlay keeps at its root. They describe the
// overlay and must never be copied into a materialized tree.
var Names = []string{UpstreamName, LocalFixesName}

// UpstreamName and LocalFixesName are the records files' names.
const (
	UpstreamName   = "UPSTREAM"
	LocalFixesName = "LOCAL_FIXES.md"
)

// splitLines splits data into lines without their terminators, accepting
// both \n and \r\n. A final line without a terminator is kept.
func splitLines(data []byte) []string {
	var lines []string
	start := 0
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			end := i
			if end > start && data[end-1] == '\r' {
				end--
			}
			lines = append(lines, string(data[start:end]))
			start = i + 1
		}
	}
	if start < len(data) {
		lines = append(lines, string(data[start:]))
	}
	return lines
}
