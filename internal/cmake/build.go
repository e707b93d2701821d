package cmake

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// BuildOptions says what to build and how to show it.
type BuildOptions struct {
	Dir       string    // a build directory Configure made
	Jobs      int       // ninja -j; 0 or less lets Ninja choose
	Targets   []string  // Ninja targets; none means the default (all)
	Progress  io.Writer // receives progress; may be nil
	TTY       bool      // Progress is a terminal: one updating line
	Width     int       // the terminal's columns; 0 or less means 80
	LogPath   string    // where the full log goes; "" means <Dir>/mlxbuild-build.log
	KeepGoing bool      // continue past failures (ninja -k 0) to collect every error
	Env       []string  // KEY=VALUE added to the environment (compiler launchers' settings)
	Source    string    // the source tree: its path is left out of custom commands' progress lines
	// Durations are the edges' expected times (LastDurations, a Record).
	// When any is known Ninja reads a copy of build.ninja whose build
	// statements are ordered longest chain first (orderManifest): the
	// same edges, started in a better order.
	Durations Durations
}

// BuildResult is what a build did.
type BuildResult struct {
	Steps      int    // edges Ninja ran (compiles, links, custom commands), not counting CMake's re-run; 0 means nothing was out of date
	FirstError string // the first error, file:line:col: error: message; "" on success
	LogPath    string // the full log
	Ran        []Step // every edge Ninja ran, in the order they finished
	Total      int    // the edges Ninja planned in its last status line
	Ordered    bool   // Ninja read the ordered copy of build.ninja
	Bound      Bound  // how close the run came to its lower bound (from .ninja_log)
	// Errors holds every error of the log, deduplicated, in order (more than
	// one only with KeepGoing or parallel failures).
	Errors []Diagnostic
}

// BuildError is a build that ran and failed.
type BuildError struct {
	Dir        string
	FirstError string
	LogPath    string
	ExitCode   int
}

func (e *BuildError) Error() string {
	return fmt.Sprintf("build in %s failed: %s (full log: %s)", e.Dir, e.FirstError, e.LogPath)
}

// Build runs Ninja in a configured build directory. Ninja runs directly, not
// through `cmake --build`, so a no-op costs what Ninja's own no-op costs; it
// re-runs CMake by itself when a CMakeLists.txt changed.
func Build(ctx context.Context, o BuildOptions) (BuildResult, error) {
	res := BuildResult{LogPath: o.LogPath}
	if res.LogPath == "" {
		res.LogPath = filepath.Join(o.Dir, "mlxbuild-build.log")
	}
	ninja, err := ninjaFor(o.Dir)
	if err != nil {
		return res, err
	}
	args := []string{"-C", o.Dir}
	if o.Jobs > 0 {
		args = append(args, "-j", strconv.Itoa(o.Jobs))
	}
	if o.KeepGoing {
		args = append(args, "-k", "0")
	}

	if err := os.MkdirAll(filepath.Dir(res.LogPath), 0o755); err != nil {
		return res, fmt.Errorf("create the build log's directory: %w", err)
	}
	logf, err := os.Create(res.LogPath)
	if err != nil {
		return res, fmt.Errorf("create the build log: %w", err)
	}
	defer logf.Close()
	lw := bufio.NewWriter(logf)

	env := append(os.Environ(), o.Env...)
	env = append(env, "NINJA_STATUS="+ninjaStatus)
	// On a pipe Ninja prints an edge's status only when it finished, so a
	// terminal would show the last finished edge for as long as the next
	// one compiles. For a person Ninja gets a pseudo-terminal (and a TERM
	// it calls smart; the user's may say dumb) and then also prints each
	// edge as it starts: progress shows what runs now, and the log still
	// gets plain lines.
	terminal := o.TTY && o.Progress != nil
	if terminal {
		env = append(env, "TERM=xterm")
	}
	p := newProgress(lw, o.Progress, o.TTY, o.Width)
	p.dirs = []string{o.Source, o.Dir}
	if o.TTY {
		p.columns = liveColumns(o.Progress, o.Width)
	}
	runNinja := func(args []string) error {
		p.finishLine() // the header goes on a line of its own
		fmt.Fprintf(lw, "# %s %s\n", ninja, strings.Join(args, " "))
		_, err := proc.Run(ctx, proc.Cmd{Path: ninja, Args: args, Env: env, Stdout: p, Stderr: p, Terminal: terminal})
		return err
	}
	var items []manifestItem
	var runErr error
	if len(o.Durations) > 0 {
		// CMake's build.ninja regenerates itself; the copy cannot, so
		// Ninja is asked for build.ninja first (a no-op when no CMake
		// file changed), then the copy is made from what it left.
		if items = readManifestItems(o.Dir); regenerable(items) {
			runErr = runNinja(append(slices.Clone(args), "build.ninja"))
			items = readManifestItems(o.Dir)
		}
		if runErr == nil && writeOrdered(o.Dir, items, o.Durations) {
			args = append(args, "-f", OrderedManifest)
			res.Ordered = true
		}
	}
	logFrom := logSize(o.Dir)
	if runErr == nil {
		runErr = runNinja(append(args, o.Targets...))
	}
	p.finish()
	if ran := logSince(o.Dir, logFrom); len(ran) > 0 {
		if items == nil {
			items = readManifestItems(o.Dir)
		}
		res.Bound = boundOf(ran, items, jobsOrDefault(o.Jobs))
	}
	if err := lw.Flush(); err != nil {
		return res, fmt.Errorf("write the build log %s: %w", res.LogPath, err)
	}

	res.Ran = p.steps
	res.Total = p.total
	// Every edge counts, as in Ninja's own [N/M]: a fork that compiles its
	// kernels in custom commands (the ROCm fork's "Compiling HIP source")
	// would otherwise report a third of its build as not run.
	for _, s := range p.steps {
		if !regenerates(s) {
			res.Steps++
		}
	}
	if runErr == nil {
		return res, nil
	}
	var exit *proc.ExitError
	if !errors.As(runErr, &exit) {
		return res, fmt.Errorf("run %s: %w (log: %s)", ninja, runErr, res.LogPath)
	}
	// What went to the log, in order and without a terminal's escape
	// codes: the compiler's errors as it printed them.
	out := p.text.String()
	res.Errors = ParseDiagnostics(out)
	if len(res.Errors) > 0 {
		res.FirstError = res.Errors[0].String()
	} else {
		res.FirstError = firstFailed(out)
	}
	return res, &BuildError{Dir: o.Dir, FirstError: res.FirstError, LogPath: res.LogPath, ExitCode: exit.Result.ExitCode}
}

// firstFailed falls back to Ninja's "FAILED: <output>" line, or the log's tail.
func firstFailed(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "FAILED: ") {
			return strings.TrimSpace(l)
		}
	}
	return lastLines(out, 3)
}

// ninjaFor returns the make program CMake recorded for dir (so the build uses
// the Ninja the configure step checked), else ninja on PATH.
func ninjaFor(dir string) (string, error) {
	if !Configured(dir) {
		return "", fmt.Errorf("%s has no build.ninja: configure it first (with the Ninja generator)", dir)
	}
	f, err := os.Open(filepath.Join(dir, "CMakeCache.txt"))
	if err != nil {
		return "ninja", nil
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "CMAKE_MAKE_PROGRAM:FILEPATH="); ok && v != "" {
			return v, nil
		}
	}
	return "ninja", nil
}

// Configured says whether dir holds a generated build.ninja: a build
// Ninja can be asked about. It is the one test of it.
func Configured(dir string) bool { return fileExists(filepath.Join(dir, "build.ninja")) }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// readManifestItems reads dir's build.ninja; nil when it cannot.
func readManifestItems(dir string) []manifestItem {
	data, err := os.ReadFile(joinBuild(dir, "build.ninja"))
	if err != nil {
		return nil
	}
	return splitManifest(data)
}

// regenerable says the manifest has an edge that remakes build.ninja
// (CMake's RERUN_CMAKE).
func regenerable(items []manifestItem) bool {
	for _, it := range items {
		if slices.Contains(it.outs, "build.ninja") {
			return true
		}
	}
	return false
}

// writeOrdered writes the ordered copy of dir's build.ninja, whose
// statements are items. A copy that cannot be written is no reason to
// fail: Ninja then reads build.ninja as always.
func writeOrdered(dir string, items []manifestItem, d Durations) bool {
	if items == nil {
		return false
	}
	return atomicfile.Write(joinBuild(dir, OrderedManifest), orderItems(items, d), 0o644) == nil
}
