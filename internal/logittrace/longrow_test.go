package logittrace

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongRow: a row over the bound is refused at its file:line with the
// bound named (bufio's "token too long" said neither); a long row under the
// bound (100 KB) is read and judged as a row.
func TestLongRow(t *testing.T) {
	head := "# model\tm\n# columns\tchunk\tpos\ttarget\tnll\ttop_ids\ttop_logits\n"
	_, err := Parse("t.tsv", []byte(head+strings.Repeat("x", maxRow+1)+"\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.tsv:3:1: ") || !strings.Contains(err.Error(), "16 MiB") || !isConfig(err) {
		t.Errorf("over the bound: %v", err)
	}
	_, err = Parse("t.tsv", []byte(head+"0\t0\t1\t0.5\t1\t"+strings.Repeat("1", 100<<10)+"\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "t.tsv:3:") || strings.Contains(err.Error(), "too long") {
		t.Errorf("a 100 KB row: %v", err)
	}
}

// TestFormatEscapesModel: a trace's model name with an ESC sequence is
// printed escaped (it was printed raw).
func TestFormatEscapesModel(t *testing.T) {
	ref := standIn(t, "ref.tsv", nil)
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(t.TempDir(), "evil.tsv")
	os.WriteFile(evil, []byte(strings.Replace(string(data), "models/mlx/stand-in-4bit", "\x1b]0;pwned\x07m\x1b[2J", 1)), 0o644)
	var out bytes.Buffer
	if err := Run(context.Background(), &out, ref, evil, DefaultDecided); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(out.String(), 0x1b) || !strings.Contains(out.String(), `\x1b]0;pwned\am\x1b[2J`) {
		t.Errorf("output:\n%q", out.String())
	}
}
