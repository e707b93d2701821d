package linkplan

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

var positioned = regexp.MustCompile(`^fuzz\.json:(\d+):(\d+): `)

// FuzzDecode: no input panics the decoder; a refusal names the file, and
// where it names a line and column they lie inside the input; a plan it
// accepts renders to JSON that decodes to the same plan.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(minimal))
	if data, err := os.ReadFile(filepath.Join("testdata", "rocm-minimlx", FileName)); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("fuzz.json", data)
		if err != nil {
			msg := err.Error()
			if m := positioned.FindStringSubmatch(msg); m != nil {
				line, _ := strconv.Atoi(m[1])
				col, _ := strconv.Atoi(m[2])
				if line < 1 || col < 1 || line > 1+bytes.Count(data, []byte("\n")) {
					t.Errorf("position %d:%d outside the input: %s", line, col, msg)
				}
			} else if !bytes.HasPrefix([]byte(msg), []byte("fuzz.json: ")) {
				t.Errorf("error does not name the file: %s", msg)
			}
			return
		}
		again, err := Decode("fuzz.json", p.JSON())
		if err != nil {
			t.Fatalf("a plan's own JSON is refused: %v\n%s", err, p.JSON())
		}
		if !bytes.Equal(again.JSON(), p.JSON()) {
			t.Errorf("round trip changed the plan:\n%s\n%s", p.JSON(), again.JSON())
		}
	})
}
