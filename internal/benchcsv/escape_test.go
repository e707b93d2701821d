package benchcsv

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareEscapesNames: a model name holding an ESC sequence, or a
// newline that would forge a line of the table, is printed escaped; both
// were printed raw to the terminal before.
func TestCompareEscapesNames(t *testing.T) {
	rowFrom := func(file, model string) string {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(data), "\n", 3)
		return lines[0] + "\n" + strings.Replace(lines[1], "Qwen3-0.6B-4bit,", model+",", 1) + "\n"
	}
	dir := t.TempDir()
	color, forged := "\x1b[31mevil\x1b[0m", "one\nFAIL  two"
	before, after := filepath.Join(dir, "before.csv"), filepath.Join(dir, "after\x1b[2J.csv")
	os.WriteFile(before, []byte(rowFrom("before.csv", color)), 0o644)
	os.WriteFile(after, []byte(rowFrom("after.csv", color)+strings.SplitN(rowFrom("after.csv", `"`+forged+`"`), "\n", 2)[1]), 0o644)
	opt := DefaultOptions()
	opt.AllowCommitChange = true
	var out bytes.Buffer
	if err := Run(context.Background(), &out, before, after, "", false, opt, ""); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.ContainsRune(text, 0x1b) || strings.Contains(text, "\nFAIL  two") {
		t.Errorf("raw control characters printed:\n%q", text)
	}
	for _, want := range []string{`\x1b[31mevil\x1b[0m`, `one\nFAIL  two`, `after\x1b[2J.csv`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %s:\n%s", want, text)
		}
	}
}
