package targets

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// flagsAfter refuses a positional argument that starts with "-". Mage
// fills a target's positional parameters first, in order, and reads flags
// only after them: `bench:compare -reference a.csv b.csv` would compare
// the file "-reference" with a.csv and take b.csv for another target. A
// file whose name starts with "-" is written ./-name.
func flagsAfter(target, usage string, args ...string) error {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return fail.Configf("%s: %q stands where an argument goes; flags go after the arguments: mage %s (a file named with a leading - is written ./%s)", target, a, usage, a)
		}
	}
	return nil
}

// flagValue is an optional flag's value, "" when it was not given.
func flagValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
