package cache

import (
	"maps"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
)

// BuildState is everything the build decision reads: the records on disk
// and this run's inputs.
type BuildState struct {
	Old        *Stamp            // inputs of the last successful build; nil for none
	Configured *ConfigureRecord  // what CMake was last configured with; nil for none
	BuildReady bool              // the build directory holds a generated build.ninja
	Cur        *Stamp            // this run's inputs
	Launcher   map[string]string // this run's compiler launcher defines
	// CMakeCache is the build directory's CMakeCache.txt (nil when it has
	// none), and Expect the entries this run's configure sets in it
	// (variable name to value: the defines, the generator, the source and
	// build directories), so a cache that does not hold them is seen.
	CMakeCache *cmakecache.Cache
	Expect     map[string]string
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
	// Scratch says the build directory must be emptied first: an input
	// CMake cannot take into an existing cache changed (ConfigureWhy
	// names it).
	Scratch bool
	// purgeFrom and purgeTo are the old and new pin when the old pin's
	// tree and build directory must go first; both "" otherwise.
	purgeFrom, purgeTo string
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
		d.purgeFrom, d.purgeTo = s.Old.Inputs["pin"], s.Cur.Inputs["pin"]
		d.ConfigureWhy, explained = change{input: "pin", old: d.purgeFrom, new: d.purgeTo}.String(), true
	case s.CMakeCache != nil || cfg != nil:
		// Whatever else holds, an input CMake cannot take into this cache
		// empties the build directory first.
		if why := scratchReason(cfg, cur, s.CMakeCache, s.Expect); why != "" {
			d.Scratch, d.ConfigureWhy = true, why
			break
		}
		d.ConfigureWhy, explained = configureReason(s, cur)
	default:
		d.ConfigureWhy, explained = configureReason(s, cur)
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

// OldPin is the pin of the last successful build (old, nil for none) when
// it is not pin: its tree and build directory are to be purged before the
// tree is made at pin (PurgeForPin), as the decision's Redo will say. ""
// when the pin is the same or the last build recorded none.
func OldPin(old *Stamp, pin string) string {
	if old == nil || old.Inputs["pin"] == pin {
		return ""
	}
	return old.Inputs["pin"]
}

// configureReason is why a build directory that need not be emptied must
// be configured ("" when it need not), and whether the stamp's changes
// already say so.
func configureReason(s BuildState, cur map[string]string) (why string, explained bool) {
	cfg := s.Configured
	switch {
	case !s.BuildReady && s.Old == nil:
		return "no previous successful build", false
	case !s.BuildReady:
		return "no build directory yet", false
	case cfg == nil:
		return "the build directory has no configure record (an older mlxbuild made it)", false
	case !cfg.Done:
		return "the last configure did not finish", false
	case maps.Equal(cfg.Inputs, cur):
		// The record says CMake's cache holds exactly this run's
		// configuration: the cache must agree.
		return cacheMismatch(s.CMakeCache, s.Expect), false
	case sameWithoutLauncher(cfg.Inputs, cur):
		return launcherChanged, false
	case s.Old != nil && sameWithoutLauncher(cfg.Inputs, configureInputs(s.Old, nil)):
		// Configured by the last successful build: the stamp's changes
		// are the reason.
		return firstChange(cfg.Inputs, cur), true
	}
	return "CMake was last configured by a run that failed or was stopped (" + firstChange(cfg.Inputs, cur) + ")", false
}

// Redo says in plan's words what the decision redoes; "" is nothing.
func (d Decision) Redo() string {
	switch {
	case d.purgeFrom != "":
		return "purge the old pin's tree and build directory, then configure and build"
	case d.Scratch:
		return "configure from scratch (in an empty build directory) and build"
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
