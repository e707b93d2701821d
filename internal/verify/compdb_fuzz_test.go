package verify

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCompileCommandsLines: for any compilation database that decodes,
// the line entryLine gives for each entry (what a finding points at) is
// the line where that entry's object starts, as encoding/json's decoder
// sees it. Seeds (testdata/fuzz/FuzzCompileCommandsLines) are CMake 3.25's
// compile_commands.json of a small project built here, and edge cases.
func FuzzCompileCommandsLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var cmds []compileCommand
		if json.Unmarshal(data, &cmds) != nil {
			return
		}
		starts := objectStarts(t, data)
		if len(starts) != len(cmds) {
			return // a null entry: entryLine cannot point at it, and need not
		}
		for i, off := range starts {
			if got, want := entryLine(data, i), lineOf(data, off); got != want {
				t.Fatalf("entry %d starts on line %d, entryLine says %d", i, want, got)
			}
		}
		if n := entryLine(data, len(cmds)); n != 0 {
			t.Fatalf("entry %d of %d entries is on line %d", len(cmds), len(cmds), n)
		}
	})
}

// objectStarts gives the offset of each top-level array element that is an
// object, from encoding/json's own reading of data.
func objectStarts(t *testing.T, data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil // null
	}
	var starts []int
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(data) && bytes.IndexByte([]byte(" \t\r\n,"), data[off]) >= 0 {
			off++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("decoded once, not twice: %v", err)
		}
		if len(raw) > 0 && raw[0] == '{' {
			starts = append(starts, off)
		}
	}
	return starts
}
