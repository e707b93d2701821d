package cmake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/shellwords"
)

// Unit is one translation unit of a build: an edge of build.ninja that
// compiles one source into one object, a compile of a language CMake knows
// or a custom command (the ROCm fork's HIP compiles).
type Unit struct {
	Output  string // the object, as build.ninja names it (relative to Dir or absolute)
	Source  string // the source, absolute
	Dir     string // where Ninja runs the command
	Command string // the command as Ninja runs it (/bin/sh syntax)
}

// unitSourceExts are the sources whose compiles count as units.
var unitSourceExts = []string{".c", ".cc", ".cpp", ".cxx", ".c++", ".hip", ".cu", ".m", ".mm"}

// Units lists every compile of the configured build directory dir, in
// build.ninja's order: the edges of `ninja -t compdb` (every rule) whose
// output is an object and whose first input is a source.
func Units(ctx context.Context, dir string) ([]Unit, error) {
	ninja, err := ninjaFor(dir)
	if err != nil {
		return nil, err
	}
	run, err := proc.Run(ctx, proc.Cmd{Path: ninja, Args: []string{"-C", dir, "-t", "compdb"}})
	if err != nil {
		return nil, fmt.Errorf("listing the compiles of %s: %w", dir, err)
	}
	var edges []ninjaCompdbEdge
	if err := json.Unmarshal(run.Stdout, &edges); err != nil {
		return nil, fmt.Errorf("reading `%s -t compdb` of %s: %w; use Ninja 1.10 or newer", ninja, dir, err)
	}
	var out []Unit
	for _, e := range edges {
		if e.Output == "" || !slices.Contains([]string{".o", ".obj"}, filepath.Ext(e.Output)) || !slices.Contains(unitSourceExts, filepath.Ext(e.File)) {
			continue
		}
		out = append(out, Unit{Output: e.Output, Source: absIn(e.Directory, e.File), Dir: e.Directory, Command: e.Command})
	}
	return out, nil
}

// PendingUnits are the units of dir that Ninja would still run: its dry run
// (which runs nothing) of every unit's object, matched to the units by
// command. After a failed build these are the units it never reached
// (blocked behind a failed target they wait for, or failed themselves).
func PendingUnits(ctx context.Context, dir string, units []Unit) ([]Unit, error) {
	if len(units) == 0 {
		return nil, nil
	}
	ninja, err := ninjaFor(dir)
	if err != nil {
		return nil, err
	}
	args := []string{"-C", dir, "-n", "-v", "-k", "0"}
	for _, u := range units {
		args = append(args, u.Output)
	}
	// With an empty status each line Ninja prints is one command.
	run, err := proc.Run(ctx, proc.Cmd{Path: ninja, Args: args, Env: append(os.Environ(), "NINJA_STATUS=")})
	if err != nil {
		return nil, fmt.Errorf("asking Ninja what is left to build in %s: %w", dir, err)
	}
	would := map[string]bool{}
	for _, l := range strings.Split(string(run.Stdout), "\n") {
		would[l] = true
	}
	var out []Unit
	for _, u := range units {
		if would[u.Command] {
			out = append(out, u)
		}
	}
	return out, nil
}

// FailedOutputs are the outputs of the edges a Ninja log says failed
// ("FAILED: out1 out2").
func FailedOutputs(log string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(log, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimRight(l, "\r"), "FAILED: "); ok {
			for _, o := range strings.Fields(rest) {
				out[o] = true
			}
		}
	}
	return out
}

// Failed says whether failed (FailedOutputs) names u's object, by
// build.ninja's name or its absolute path.
func (u Unit) Failed(failed map[string]bool) bool {
	return failed[u.Output] || failed[absIn(u.Dir, u.Output)]
}

// CompileUnit runs one unit's command itself, not through Ninja, so the
// targets Ninja would build first (order-only dependencies, such as a HIP
// kernel library every C++ object of the ROCm fork's mlx waits for) are not
// needed: a unit that can compile does. Its output goes to log. The object
// is not recorded in Ninja's log, so the next Ninja run compiles it again:
// nothing stale is kept. A command that is not a fixed list of arguments
// (see shellwords.Commands) is an error before anything runs.
func CompileUnit(ctx context.Context, u Unit, env []string, log io.Writer) error {
	cmds, err := shellwords.Commands(u.Command)
	if err != nil {
		return fmt.Errorf("the command of %s is not a fixed argument list: %w", u.Output, err)
	}
	if err := os.MkdirAll(filepath.Dir(absIn(u.Dir, u.Output)), 0o755); err != nil {
		return err
	}
	if len(env) > 0 {
		env = append(os.Environ(), env...)
	}
	// The command's stdout and stderr are copied by two goroutines.
	log = &lockedWriter{w: log}
	cwd := u.Dir
	for _, argv := range cmds {
		if argv[0] == "cd" && len(argv) == 2 {
			cwd = absIn(cwd, argv[1])
			continue
		}
		fmt.Fprintf(log, "%s\n", strings.Join(argv, " "))
		if _, err := proc.Run(ctx, proc.Cmd{Path: argv[0], Args: argv[1:], Dir: cwd, Env: env, Stdout: log, Stderr: log}); err != nil {
			fmt.Fprintf(log, "FAILED: %s\n", u.Output)
			return fmt.Errorf("compiling %s: %w", u.Source, err)
		}
	}
	return nil
}

// lockedWriter serializes the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
