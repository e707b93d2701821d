package gotest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestRunEndsWithTheFailures runs a real go test over a module with a
// passing package first and a failing one after it: the output ends with
// the failed test and its command, and the error is one line that points
// there (the old Test target ended with the start of go test's output: an
// "ok" line, the failure cut off).
func TestRunEndsWithTheFailures(t *testing.T) {
	testutil.NeedTools(t, "go")
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module example.com/r\n\ngo 1.26\n",
		"a/a_test.go": "package a\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n",
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestBroken(t *testing.T) { t.Run(\"case 1\", func(t *testing.T) { t.Error(\"want 1, got 2\") }) }\n",
		"c/c.go":      "package c\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOTOOLCHAIN", "local")
	var stdout, stderr strings.Builder
	err := Run(context.Background(), dir, []string{"-count=1", "./..."}, &stdout, &stderr)
	if err == nil || err.Error() != "go test: 2 tests in 1 package failed (listed above)" {
		t.Errorf("error = %v", err)
	}
	out := stdout.String()
	wantEnd := `
2 tests in 1 package failed; run each again with the command under it:
  ./b TestBroken/case_1: failed
      go test -count=1 -run '^TestBroken$/^case_1$' ./b
  ./b TestBroken: failed
      go test -count=1 -run '^TestBroken$' ./b
`
	if !strings.HasSuffix(out, wantEnd) {
		t.Errorf("output does not end with the failures:\n%s\nstderr:\n%s", out, stderr.String())
	}
	for _, line := range []string{"ok  \texample.com/r/a\t", "    b_test.go:5: want 1, got 2\n", "FAIL\texample.com/r/b\t"} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
}
