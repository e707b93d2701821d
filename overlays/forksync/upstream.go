package forksync

import (
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
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

// checkRecordRev refuses an UPSTREAM field (commit:,
// fork_upstream_merge_base:, retargeted_to_mlx_pin:) that git must not see
// as a revision: UPSTREAM is vendored, so a pull request can edit it, and a
// value git reads as an option would run a command on the machine that
// syncs. The error gives the field's position in file (exit status 2).
func checkRecordRev(file string, f records.Field) error {
	if err := gitrun.CheckRev(f.Value); err != nil {
		return &configs.ConfigError{Problems: []configs.Problem{{
			Pos: configs.Pos{File: file, Line: f.Line, Col: f.Col},
			Msg: fmt.Sprintf("%s: %q %v; write the full commit id there", f.Key, clipValue(f.Value), err),
		}}}
	}
	return nil
}

// checkArgRev refuses a revision given on the command line (what, e.g.
// "-candidate") that git must not see (exit status 2).
func checkArgRev(what, rev, fix string) error {
	if err := gitrun.CheckRev(rev); err != nil {
		return fail.Configf("%s %q %v; %s", what, clipValue(rev), err, fix)
	}
	return nil
}

// clipValue shortens a hostile value for a message.
func clipValue(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
