package backends

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-version"
)

// envMap returns an env function over m (unset keys read as "").
func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeFile creates path with content and mode, making its directories.
func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// mustVersion parses a version literal of a test.
func mustVersion(t *testing.T, s string) *version.Version {
	t.Helper()
	v, err := version.NewVersion(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
