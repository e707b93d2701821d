package cache

import (
	"maps"
	"strings"
)

// BuildState is everything the build decision reads: the records on disk
// and this run's inputs.
type BuildState struct {
	Old        *Stamp            // inputs of the last successful build; nil for none
	Configured *ConfigureRecord  // what CMake was last configured with; nil for none
	BuildReady bool              // the build directory holds a generated build.ninja
	Cur        *Stamp            // this run's inputs
	Launcher   map[string]string // this run's compiler launcher defines
}

// Decision is what a run must redo and why: build and verify act on it,
// plan prints it, so plan is the build's own decision.
type Decision struct {
	// Why lists what differs from the last successful build, in plan's
	// words, plus the reason to configure when the stamp does not explain
	// it; empty means up to date (Ninja still checks the tree's files).
	Why []string
	// Configure says CMake must configure the build directory again, and
	// ConfigureWhy why, in one phrase.
	Configure    bool
	ConfigureWhy string
	// PurgeFrom and PurgeTo are the old and new pin when the old pin's
	// tree and build directory must go first; both "" otherwise.
	PurgeFrom, PurgeTo string
	// Record is what to write (Done false) before configure starts.
	Record ConfigureRecord
}

// launcherChanged is the reason given when only the compiler launcher
// differs from what CMake was configured with.
const launcherChanged = "compiler launcher settings changed (CMake reconfigures; the tree stays)"

// Decide is the one build decision. CMake configures when the build
// directory has no build.ninja, when the pin changed (its tree and build
// directory are purged), or when what CMake was last configured with (the
// configure record) is not what this run would configure with, or that
// configure did not finish. The record is compared rather than the stamp
// because the stamp is written only after a successful build: a run that
// configured for other architectures and then failed or was killed leaves
// the stamp as it was, but not the build directory.
func Decide(s BuildState) Decision {
	var d Decision
	for _, c := range diff(s.Old, s.Cur) {
		d.Why = append(d.Why, c.String())
	}
	cur := configureInputs(s.Cur, s.Launcher)
	d.Record = ConfigureRecord{Inputs: cur}
	explained := false // whether Why already says why configure runs
	switch cfg := s.Configured; {
	case s.Old != nil && s.Old.Inputs["pin"] != s.Cur.Inputs["pin"]:
		d.PurgeFrom, d.PurgeTo = s.Old.Inputs["pin"], s.Cur.Inputs["pin"]
		d.ConfigureWhy, explained = change{input: "pin", old: d.PurgeFrom, new: d.PurgeTo}.String(), true
	case !s.BuildReady && s.Old == nil:
		d.ConfigureWhy = d.Why[0] // "no previous successful build"
	case !s.BuildReady:
		d.ConfigureWhy = "no build directory yet"
	case cfg == nil:
		d.ConfigureWhy = "the build directory has no configure record (an older mlxbuild made it)"
	case !cfg.Done:
		d.ConfigureWhy = "the last configure did not finish"
	case maps.Equal(cfg.Inputs, cur):
		// CMake's cache holds exactly this run's configuration.
	case sameWithoutLauncher(cfg.Inputs, cur):
		d.ConfigureWhy = launcherChanged
	case s.Old != nil && sameWithoutLauncher(cfg.Inputs, configureInputs(s.Old, nil)):
		// Configured by the last successful build: the stamp's changes
		// are the reason.
		d.ConfigureWhy, explained = firstChange(cfg.Inputs, cur), true
	default:
		d.ConfigureWhy = "CMake was last configured by a run that failed or was stopped (" + firstChange(cfg.Inputs, cur) + ")"
	}
	if d.ConfigureWhy == "" {
		return d
	}
	d.Configure = true
	// Without a previous build, "no previous successful build" says it all.
	if !explained && s.Old != nil {
		d.Why = append(d.Why, d.ConfigureWhy)
	}
	return d
}

// Redo says in plan's words what the decision redoes; "" is nothing.
func (d Decision) Redo() string {
	switch {
	case d.PurgeFrom != "":
		return "purge the old pin's tree and build directory, then configure and build"
	case d.Configure:
		return "configure and build"
	case len(d.Why) > 0:
		return "build (Ninja decides which files)"
	}
	return ""
}

// firstChange names the first configure input, launcher defines aside,
// that differs from configured to cur.
func firstChange(configured, cur map[string]string) string {
	cs := diff(&Stamp{Inputs: withoutLauncher(configured)}, &Stamp{Inputs: withoutLauncher(cur)})
	if len(cs) == 0 {
		return launcherChanged
	}
	return cs[0].String()
}

func sameWithoutLauncher(a, b map[string]string) bool {
	return maps.Equal(withoutLauncher(a), withoutLauncher(b))
}

func withoutLauncher(m map[string]string) map[string]string {
	out := maps.Clone(m)
	maps.DeleteFunc(out, func(k, _ string) bool { return strings.HasPrefix(k, launcherPrefix) })
	return out
}
