package targets

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsEscapeWhatTheyQuote: arch:check of a file whose name holds an
// ESC sequence and a carriage return (which lets the rest overwrite the
// line) fails with a message that shows them escaped (the path was printed
// raw before, so the terminal obeyed it). Line breaks of an error stay:
// errors of several lines are written with them.
func TestErrorsEscapeWhatTheyQuote(t *testing.T) {
	useForTest(t, nil)
	file := filepath.Join(t.TempDir(), "lib\x1b[2J\rFAIL.a")
	err := (Arch{}).Check(context.Background(), file)
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || strings.ContainsRune(err.Error(), '\r') || !strings.Contains(err.Error(), `lib\x1b[2J\rFAIL.a`) {
		t.Errorf("err = %q", err)
	}
}
