package testutil

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Snapshot records every entry under dir, keyed by its slash path relative
// to dir: a file's mode and bytes, a directory's mode, a link's target. Two
// snapshots compare equal only when nothing under dir was created, removed
// or changed byte for byte.
func Snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link " + target
		case d.IsDir():
			m[rel] = fmt.Sprintf("dir %v", info.Mode())
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = fmt.Sprintf("file %v %q", info.Mode(), b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// SnapshotDiff lists, one per line, what differs between two snapshots:
// "+ path" created, "- path" removed, "~ path" changed. "" means none.
func SnapshotDiff(before, after map[string]string) string {
	var lines []string
	for k, v := range after {
		if w, ok := before[k]; !ok {
			lines = append(lines, "+ "+k)
		} else if w != v {
			lines = append(lines, "~ "+k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			lines = append(lines, "- "+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
