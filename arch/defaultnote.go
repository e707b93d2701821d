package arch

import "fmt"

// Verbs for DefaultNote: what the caller does with the default list.
const (
	// Building is for a build that configures with the list, the one
	// place where the list decides what gets compiled.
	Building = "building for"
	// WouldBuild is for what only reports the list: plan, arch:rocm.
	WouldBuild = "would build for"
)

// DefaultNote says that no GPU was found and the targets are the spec's
// default list, with the variable that chooses instead; verb (Building or
// WouldBuild) says what the caller does with the list. It is "" when the
// targets came from the variable or a probe. It is not among Warnings: a
// no-op build, which compiles nothing for the list, has nothing to say.
func (r Result) DefaultNote(verb string) string {
	if r.defaulted.variable == "" {
		return ""
	}
	return fmt.Sprintf("no GPU found; %s the spec's default list %s (set %s to choose)", verb, r.defaulted.list, r.defaulted.variable)
}
