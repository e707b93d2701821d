package cmake

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// FuzzParseRecord: a record either parses into what writing it back
// gives again, or is refused with an error; it never panics.
func FuzzParseRecord(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRecord("r", data)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteRecord(&buf, r); err != nil {
			t.Fatal(err)
		}
		again, err := ParseRecord("r", buf.Bytes())
		if err != nil || again.Identity != oneLine(r.Identity) || len(again.Durations) != len(r.Durations) {
			t.Fatalf("round trip of %q: %+v, %v", data, again, err)
		}
	})
}

// FuzzOrderManifest: ordering keeps every byte of every statement, for any
// manifest, and never panics.
func FuzzOrderManifest(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		d := Durations{}
		for i, it := range splitManifest(data) {
			for _, o := range it.outs {
				d[o] = time.Duration(i*7%5) * time.Second
			}
		}
		got := orderManifest(data, d)
		a, b := statementsOf(data), statementsOf(got)
		if !slices.Equal(a, b) {
			t.Fatalf("ordering %q changed its statements:\n%q\n%q", data, a, b)
		}
	})
}

// statementsOf are a manifest's statements, each ending in a newline,
// sorted.
func statementsOf(data []byte) []string {
	var s []string
	for _, it := range splitManifest(data) {
		s = append(s, strings.TrimSuffix(string(it.raw), "\n")+"\n")
	}
	slices.Sort(s)
	return s
}
