package verify

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies a fixture to a fresh temporary directory, so a test can
// plant a defect without touching testdata.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// plant replaces old with new in dir/rel, failing if old is not there, so a
// fixture change cannot silently disarm a defect test.
func plant(t *testing.T, dir, rel, old, new string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("planting a defect: %q not found in %s", old, rel)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, dir, rel, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, c Check) Result {
	t.Helper()
	r := c.Run(context.Background())
	if r.Check != c.Name() {
		t.Errorf("result names check %q, want %q", r.Check, c.Name())
	}
	return r
}

func mustPass(t *testing.T, c Check) Result {
	t.Helper()
	r := run(t, c)
	if r.Status != Pass {
		t.Fatalf("%s on the clean fixture: %v (%s), findings:\n%s", c.Name(), r.Status, r.Reason, findingsText(r))
	}
	return r
}

// mustFind asserts that the check fails with a finding whose location ends
// with loc (for example "x.cpp:12") and whose message contains msg, and that
// the finding says what to do.
func mustFind(t *testing.T, c Check, loc, msg string) Result {
	t.Helper()
	r := run(t, c)
	if r.Status != Fail {
		t.Fatalf("%s: status %v, want fail with %s: %s", c.Name(), r.Status, loc, msg)
	}
	for _, f := range r.Findings {
		if strings.HasSuffix(f.Location(), loc) && strings.Contains(f.Message, msg) {
			if f.Fix == "" {
				t.Errorf("finding %s %q has no fix", f.Location(), f.Message)
			}
			return r
		}
	}
	t.Fatalf("%s: no finding at %q containing %q; got:\n%s", c.Name(), loc, msg, findingsText(r))
	return r
}

func findingsText(r Result) string {
	var b strings.Builder
	for _, f := range r.Findings {
		writeFinding(&b, f, "  ")
	}
	return b.String()
}

// mustHave asserts that a result already known to fail has a finding at loc
// whose message contains msg.
func mustHave(t *testing.T, r Result, loc, msg string) {
	t.Helper()
	for _, f := range r.Findings {
		if strings.HasSuffix(f.Location(), loc) && strings.Contains(f.Message, msg) {
			return
		}
	}
	t.Errorf("%s: no finding at %q containing %q; got:\n%s", r.Check, loc, msg, findingsText(r))
}
