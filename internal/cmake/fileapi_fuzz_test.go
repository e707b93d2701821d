package cmake

import (
	"strings"
	"testing"
)

// FuzzFileAPIReply: whatever a reply file holds, its readers return an
// error or an answer that keeps to the reply directory (plain file names)
// and a two-digit standard. Seeds (testdata/fuzz/FuzzFileAPIReply) are
// CMake 3.25's index, code model and target replies for the stand-in.
func FuzzFileAPIReply(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if name, err := parseIndex(data); err == nil && strings.ContainsAny(name, `/\`) {
			t.Fatalf("index names %q, outside the reply directory", name)
		}
		if files, err := parseCodemodel(data); err == nil {
			for target, file := range files {
				if strings.ContainsAny(file, `/\`) || file == ".." {
					t.Fatalf("code model maps %q to %q, outside the reply directory", target, file)
				}
			}
		}
		if std, err := parseTargetStd(data); err == nil && std != "" && stdRank(std) == 0 {
			t.Fatalf("target standard %q is not a two-digit year", std)
		}
	})
}
