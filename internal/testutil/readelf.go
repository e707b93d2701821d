package testutil

import "strings"

// Field returns what follows prefix in s up to the next closing bracket, or
// "": readelf -d's value of a tag, as in Field(out, "Library runpath: [").
func Field(s, prefix string) string {
	i := strings.Index(s, prefix)
	if i < 0 {
		return ""
	}
	rest := s[i+len(prefix):]
	if j := strings.IndexByte(rest, ']'); j >= 0 {
		return rest[:j]
	}
	return ""
}
