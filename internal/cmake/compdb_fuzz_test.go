package cmake

import (
	"bytes"
	"testing"
)

// FuzzCompileDBMerge: whatever a build directory's compile_commands.json
// holds, completing it keeps every entry that is not one mlxbuild added,
// byte for byte and in order, and completing the result again gives the
// same bytes (a second build never duplicates an entry). Seeds
// (testdata/fuzz/FuzzCompileDBMerge) are CMake 3.25's output and a database
// mlxbuild completed.
func FuzzCompileDBMerge(f *testing.F) {
	added := []compileEntry{{Directory: "/b", File: "/t/k.hip", Arguments: []string{"/usr/bin/hipcc", "-c", "/t/k.hip", "-o", "k.o", `-DQ="<&>"`}}}
	f.Fuzz(func(t *testing.T, data []byte) {
		kept, _, err := cmakeEntries(data)
		if err != nil {
			return
		}
		once, err := renderCompileDB(kept, added)
		if err != nil {
			t.Fatal(err)
		}
		kept2, dropped, err := cmakeEntries(once)
		if err != nil || dropped != len(added) || len(kept2) != len(kept) {
			t.Fatalf("%q rendered as %q, which reads back as %d kept, %d dropped, %v", data, once, len(kept2), dropped, err)
		}
		for i := range kept {
			if !bytes.Equal(bytes.TrimSpace(kept[i]), kept2[i]) {
				t.Fatalf("entry %d changed: %q became %q", i, kept[i], kept2[i])
			}
		}
		twice, err := renderCompileDB(kept2, added)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("completing again changed the file:\n%s\n----\n%s", once, twice)
		}
	})
}
