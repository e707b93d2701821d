package compilecache

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// launcherName is the launcher mlxbuild puts in front of every custom
// command of a HIP build (CMake's RULE_LAUNCH_CUSTOM, set by LaunchScript),
// a copy of the mlxbuild binary itself in the backend's cache directory, and
// the argv[0] that makes any mlxbuild binary act as it.
//
// Why a copy of this binary and not a separate program: a build runs from
// `go run mage.go` (the binary is Mage's compiled magefile, kept in Mage's
// cache), from a compiled Mage binary (on a machine that may have no Go to
// build a helper with) or from a test binary; each links this package, so
// each can be the launcher, and a copy at a fixed path keeps build.ninja's
// commands the same whichever one configured it. InstallLauncher refreshes
// the copy before each Ninja run, which changes no command, so an mlxbuild
// upgrade recompiles nothing. It is not a shell script: the launcher parses
// nothing a shell would, and runs the command with its arguments as given.
const launcherName = "mlxbuild-launch"

// The CMake variables Setup defines for LaunchScript: the launcher's path,
// and the compile cache that HIP compiles go to ("" for none).
const (
	launchDefine      = "MLXBUILD_LAUNCH_CUSTOM"
	launchCacheDefine = "MLXBUILD_LAUNCH_CACHE"
)

// init makes this binary the launcher when it runs under launcherName,
// before anything else of mlxbuild starts.
func init() {
	if len(os.Args) == 0 || filepath.Base(os.Args[0]) != launcherName {
		return
	}
	os.Exit(launch(os.Args[1:], os.Environ(), os.Stderr))
}

// launch runs the launcher: it execs the command it was given (see
// launchRequest.plan), or says why not with exit status 2 (its own
// arguments are wrong: a build.ninja mlxbuild did not write) or 127 (the
// program is missing, as a shell says).
func launch(args, env []string, stderr io.Writer) int {
	r, err := parseLaunch(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", launcherName, err)
		return 2
	}
	path, argv := r.plan(sameProgram)
	err = proc.Exec(path, argv, env)
	fmt.Fprintf(stderr, "%s: %v\n", launcherName, err)
	return 127
}

// launchRequest is one run of the launcher: its own options, then the
// custom command as CMake wrote it.
type launchRequest struct {
	hip   string   // the HIP compiler (CMAKE_HIP_COMPILER)
	cache string   // the cache that HIP compiles go through; "" for none
	cmd   []string // the command: program and arguments
}

// parseLaunch reads `--hip=COMPILER [--cache=TOOL] -- PROGRAM ARGS...`.
func parseLaunch(args []string) (launchRequest, error) {
	var r launchRequest
	for i, a := range args {
		switch {
		case a == "--":
			r.cmd = args[i+1:]
			if len(r.cmd) == 0 || r.cmd[0] == "" {
				return r, errors.New("no command after --")
			}
			if r.hip == "" {
				return r, errors.New("no --hip=COMPILER before --")
			}
			return r, nil
		case strings.HasPrefix(a, "--hip="):
			r.hip = strings.TrimPrefix(a, "--hip=")
		case strings.HasPrefix(a, "--cache="):
			r.cache = strings.TrimPrefix(a, "--cache=")
		default:
			return r, fmt.Errorf("unknown argument %q before --", a)
		}
	}
	return r, errors.New("no -- before the command")
}

// offloadJobFlags are the driver options that run a compile's device jobs
// in parallel beside the build tool's own jobs: AMD clang's
// -parallel-jobs=N (the ROCm fork passes half the machine's cores) and
// upstream clang's --offload-jobs=N.
var offloadJobFlags = []string{"-parallel-jobs=", "--parallel-jobs=", "--offload-jobs="}

// plan is what the launcher execs for r: a compile by the HIP compiler (-c)
// goes to the cache, if any, without its offload job count, so it runs one
// job at a time, as each of Ninja's jobs is counted (mlxbuild gives Ninja the
// whole job budget), and its cache key does not depend on the machine's
// core count; every other command runs exactly as given.
func (r launchRequest) plan(same func(a, b string) bool) (path string, argv []string) {
	if !same(r.cmd[0], r.hip) || !slices.Contains(r.cmd[1:], "-c") {
		return r.cmd[0], r.cmd
	}
	argv = []string{r.cmd[0]}
	for _, a := range r.cmd[1:] {
		if !slices.ContainsFunc(offloadJobFlags, func(f string) bool { return strings.HasPrefix(a, f) }) {
			argv = append(argv, a)
		}
	}
	if r.cache == "" {
		return r.cmd[0], argv
	}
	return r.cache, append([]string{r.cache}, argv...)
}

// sameProgram reports whether a and b name the same program: the same
// string, or the same file (a symlink, another spelling of the path).
func sameProgram(a, b string) bool {
	if a == b {
		return true
	}
	if !strings.Contains(a, "/") || !strings.Contains(b, "/") {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// LaunchedCommand is the command that argv runs: for a run of the launcher,
// the command after its own arguments (what a compilation database should
// list); any other argv as it is.
func LaunchedCommand(argv []string) []string {
	if len(argv) == 0 || filepath.Base(argv[0]) != launcherName {
		return argv
	}
	if i := slices.Index(argv, "--"); i >= 0 && i+1 < len(argv) {
		return argv[i+1:]
	}
	return argv
}
