package records

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// droppedHeadingRE is a LOCAL_FIXES.md heading that lists fork files the
// overlay leaves out on purpose, as the reference's "## Dropped from the
// vendored set" does.
var droppedHeadingRE = lazyregexp.New(`(?i)^#{1,6}\s.*\b(dropped|not carried|not vendored|left out)\b`)

// Dropped lists the paths LOCAL_FIXES.md names under a heading that says
// they are left out of the overlay ("## Dropped from the vendored set"), in
// the order written. A first sync of a fork brings every MLX file the fork
// changes except these.
func Dropped(data []byte) []string {
	var out []string
	in := false
	for _, line := range splitLines(data) {
		if headingRE.MatchString(line) {
			in = droppedHeadingRE.MatchString(line)
			continue
		}
		if !in {
			continue
		}
		for _, m := range backtickRE.FindAllStringSubmatch(line, -1) {
			if p := strings.TrimPrefix(m[1], "./"); isPathLike(p) {
				out = append(out, p)
			}
		}
	}
	return out
}
