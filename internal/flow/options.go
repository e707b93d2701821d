// Package flow runs mlxbuild's main flows (build, plan) over the plain
// packages: it loads the configuration, selects the backend, locates the
// toolchain, resolves architectures, materializes the tree, decides what to
// redo from the stamp, drives CMake and writes the link plan. Targets are
// thin wrappers over it, so the flow is testable without Mage.
package flow

import (
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// Version is mlxbuild's version; it is part of every stamp, so a new
// mlxbuild rebuilds what an older one built.
const Version = "0.1.0"

// Options are the ambient facts of one run. The zero value means this
// process's working directory, environment, platform and streams.
type Options struct {
	Dir    string              // where to start looking for mlxbuild.yaml
	Env    func(string) string // environment lookup
	GOOS   string
	Stdout io.Writer // results meant for programs (plan JSON, lists)
	Stderr io.Writer // progress and diagnostics for people

	// warnings, when set, also gets every warning, one line each: a Cargo
	// build script's stdout, where Cargo shows `cargo:warning=` lines and
	// hides stderr unless the script fails.
	warnings func(string)
	// jobSlots, when set, bounds the jobs of a build that is about to run
	// Ninja (a jobserver's tokens, see cargoJobSlots) and returns what
	// gives them back once Ninja is done.
	jobSlots func(jobs int, warn func(string, ...any)) (int, func())
}

func (o Options) withDefaults() Options {
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.Env == nil {
		o.Env = os.Getenv
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	return o
}

func (o Options) printer() *ui.Printer {
	pr := ui.New(o.Stderr, o.Env)
	pr.OnWarn = o.warnings
	return pr
}

// verbose reports whether the details of a no-op are wanted: Mage's -v sets
// MAGEFILE_VERBOSE for the targets it runs.
func (o Options) verbose() bool {
	v, _ := strconv.ParseBool(o.Env("MAGEFILE_VERBOSE"))
	return v
}
