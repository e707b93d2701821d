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

// stringFlag is a target's optional string flag as Mage passed it (nil when
// the flag was not given) with its name as the user types it.
type stringFlag struct {
	name  string
	value *string
}

// flag names an optional string flag for runTarget, which checks it.
func flag(name string, value *string) stringFlag { return stringFlag{name, value} }

// checkFlags is the one place a flag's value is checked before the work
// starts. Mage refuses an empty number, bool or duration itself (exit 2);
// an empty string it passes on, and an absent flag means "the default",
// which for -backend is every backend: `-backend=$BACKEND` with BACKEND
// unset in a CI script must not clean, fetch or check everything. So a
// flag given with an empty (or blank) value is a usage error.
func checkFlags(target string, flags []stringFlag) error {
	for _, f := range flags {
		if f.value != nil && strings.TrimSpace(*f.value) == "" {
			return fail.Configf("%s: -%s was given an empty value (%q; an unset variable?); give it a value, or leave -%s out for its default", target, f.name, *f.value, f.name)
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
