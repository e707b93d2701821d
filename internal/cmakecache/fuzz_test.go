package cmakecache

import (
	"strings"
	"testing"
)

// FuzzParse: any text either parses or is refused with its position; what
// parses, written back the way CMake writes entries, parses to the same
// entries.
func FuzzParse(f *testing.F) {
	f.Add([]byte(cmakeWrote))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("c", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "c:") {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		var b strings.Builder
		for _, e := range c.entries {
			if strings.ContainsAny(e.Name, "\"\n") || strings.ContainsAny(e.Value, "\n") || strings.Contains(e.Type, "=") || strings.HasPrefix(e.Name, "#") || strings.HasPrefix(e.Name, "//") || strings.TrimLeft(e.Name, " \t\r") != e.Name {
				continue
			}
			name := e.Name
			if strings.ContainsAny(name, ":=") {
				name = `"` + name + `"`
			}
			value := e.Value
			if strings.TrimRight(value, " \t\r") != value || len(value) >= 2 && value[0] == '\'' && value[len(value)-1] == '\'' {
				value = "'" + value + "'"
			}
			b.WriteString(name + ":" + e.Type + "=" + value + "\n")
			again, err := Parse("again", []byte(name+":"+e.Type+"="+value+"\n"))
			if err != nil {
				t.Fatalf("%+v written back does not parse: %v", e, err)
			}
			got, ok := again.Get(e.Name)
			if e.Type == "INTERNAL" && isProperty(e.Name) {
				continue
			}
			if !ok || got.Type != e.Type || got.Value != e.Value {
				t.Fatalf("%+v written back reads as %+v, %v", e, got, ok)
			}
		}
		for _, e := range c.entries {
			if !Same(e.Value, e.Value) {
				t.Fatalf("Same(%q, itself) is false", e.Value)
			}
		}
	})
}
