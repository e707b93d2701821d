package cmake

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// exampleDir is the bundled example, relative to this package.
const exampleDir = "../../examples/minimlx"

// treeHash fingerprints every file's path and content under dir.
func treeHash(t testing.TB, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			lines = append(lines, "d "+rel)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := sha256.Sum256(b)
		lines = append(lines, "f "+rel+" "+hex.EncodeToString(s[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	s := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(s[:])
}

// stepsOf returns the Display of each step, for messages.
func stepsOf(r BuildResult) []string {
	var s []string
	for _, st := range r.Ran {
		s = append(s, st.Display)
	}
	return s
}
