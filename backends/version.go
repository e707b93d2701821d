package backends

import (
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/hashicorp/go-version"
)

// versionRe finds the first dotted version in a tool's output. Build
// suffixes ("5.2.21153-0", "6.1.2-119") are dropped: go-version would read
// them as pre-releases and order 5.2.21153-0 before 5.2.21153.
var versionRe = lazyregexp.New(`(\d+)\.(\d+)(?:\.(\d+))?`)

// parseVersion returns the first version found in text, or an error that
// quotes what was read.
func parseVersion(text string) (*version.Version, error) {
	m := versionRe.FindString(text)
	if m == "" {
		return nil, fmt.Errorf("no version number in %q", firstLine(text))
	}
	v, err := version.NewVersion(m)
	if err != nil { // a number too large for go-version
		return nil, fmt.Errorf("unreadable version number %q in %q", m, firstLine(text))
	}
	return v, nil
}

// firstLine returns the first non-empty line of s, trimmed, at most 200 bytes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}
