package cmake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// ConfigureOptions says what to configure and how.
type ConfigureOptions struct {
	Source string // the CMake source tree (holds the top CMakeLists.txt)
	Build  string // the build directory, created when missing
	// Defines are cache entries, passed as -DKEY=VALUE sorted by key so the
	// command line (and a stamp made from it) is stable.
	// CMAKE_BUILD_TYPE defaults to Release; CMAKE_EXPORT_COMPILE_COMMANDS is
	// always ON, since backend isolation is checked on compile_commands.json.
	Defines map[string]string
	Env     []string  // KEY=VALUE added to this process's environment
	Log     io.Writer // receives CMake's output as it runs; may be nil
	CMake   string    // the cmake program; "" means cmake on PATH
	// DependencyProvider is a CMake file that installs a dependency
	// provider (internal/deps); it is passed as
	// CMAKE_PROJECT_TOP_LEVEL_INCLUDES with FetchContent fully
	// disconnected, so CMake never downloads.
	DependencyProvider string
	// Includes are more CMake files for CMAKE_PROJECT_TOP_LEVEL_INCLUDES,
	// after the dependency provider (internal/compilecache's launcher
	// script).
	Includes []string
}

// defineKeyRe is a CMake cache variable name, optionally typed (KEY:BOOL).
var defineKeyRe = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_.+-]*(:(BOOL|STRING|PATH|FILEPATH|INTERNAL))?$`)

// Generator is the CMake generator every configure uses.
const Generator = "Ninja"

// ConfigureArgs returns the cmake arguments Configure runs, for stamps and
// for plan output ("what would be run").
func ConfigureArgs(o ConfigureOptions) ([]string, error) {
	defs, err := configureDefines(o)
	if err != nil {
		return nil, err
	}
	args := []string{"-S", o.Source, "-B", o.Build, "-G", Generator}
	for _, k := range slices.Sorted(maps.Keys(defs)) {
		args = append(args, "-D"+k+"="+defs[k])
	}
	return args, nil
}

// CacheEntries are the entries a configure with o leaves in CMake's
// cache, each variable (without a :TYPE) to the value it sets: the
// defines, the generator, and the source and build directories.
func CacheEntries(o ConfigureOptions) (map[string]string, error) {
	defs, err := configureDefines(o)
	if err != nil {
		return nil, err
	}
	entries := map[string]string{"CMAKE_GENERATOR": Generator, "CMAKE_HOME_DIRECTORY": o.Source, "CMAKE_CACHEFILE_DIR": o.Build}
	for k, v := range defs {
		entries[cmakecache.Name(k)] = v
	}
	return entries, nil
}

// configureDefines are the -D definitions of a configure with o.
func configureDefines(o ConfigureOptions) (map[string]string, error) {
	defs := map[string]string{"CMAKE_BUILD_TYPE": "Release"}
	for k, v := range o.Defines {
		if !defineKeyRe.MatchString(k) {
			return nil, fmt.Errorf("CMake define %q is not a variable name: fix the spec's defines", k)
		}
		if strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("CMake define %s holds a line break: fix the spec's defines", k)
		}
		defs[k] = v
	}
	defs["CMAKE_EXPORT_COMPILE_COMMANDS"] = "ON"
	var includes []string
	if o.DependencyProvider != "" {
		includes = append(includes, o.DependencyProvider)
		defs["FETCHCONTENT_FULLY_DISCONNECTED"] = "ON"
	}
	for _, f := range append(includes, o.Includes...) {
		if strings.ContainsAny(f, ";\n\r") {
			return nil, fmt.Errorf("CMake include %q holds a ';' or a line break, which a CMake list cannot: move the cache (MLXBUILD_CACHE) to a plainer path", f)
		}
	}
	if includes = append(includes, o.Includes...); len(includes) > 0 {
		defs["CMAKE_PROJECT_TOP_LEVEL_INCLUDES"] = strings.Join(includes, ";")
	}
	return defs, nil
}

// Configure runs CMake's configure step with the Ninja generator. On failure
// the error starts with CMake's first error (file:line: text).
func Configure(ctx context.Context, o ConfigureOptions) error {
	if o.Source == "" || o.Build == "" {
		return errors.New("cmakebuild.Configure: Source and Build must be set")
	}
	args, err := ConfigureArgs(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Build, 0o755); err != nil {
		return fmt.Errorf("create build directory: %w", err)
	}
	if err := writeFileAPIQuery(o.Build); err != nil {
		return err
	}
	cmake := o.CMake
	if cmake == "" {
		cmake = "cmake"
	}
	var env []string
	if len(o.Env) > 0 {
		env = append(os.Environ(), o.Env...)
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: cmake, Args: args, Env: env, Stdout: o.Log, Stderr: o.Log})
	if err == nil {
		return nil
	}
	var exit *proc.ExitError
	if !errors.As(err, &exit) {
		return fmt.Errorf("run cmake: %w; install CMake (Debian: apt-get install cmake ninja-build)", err)
	}
	out := string(res.Stdout) + "\n" + string(res.Stderr)
	e := &ConfigureError{Source: o.Source, Hint: "fix it and configure again"}
	var ok bool
	if e.At, ok = cmakeError(out, o.Source, filepath.Join(o.Build, "_deps")); !ok {
		e.At = Diagnostic{Message: lastLines(out, 5)}
	}
	if strings.Contains(out, "Does not match the generator used previously") {
		e.Hint = "remove the build directory " + o.Build + " (it was made by another generator) and configure again"
	}
	return e
}

// ConfigureError is a failed configure: CMake's first error, with the file
// and line CMake gave (a file of the tree, when it is the project's own
// CMake code), so the caller can name the user's file behind it.
type ConfigureError struct {
	Source string     // the source directory configured
	At     Diagnostic // File is "" when CMake named none
	Hint   string     // what to do; "" when the caller says it
}

func (e *ConfigureError) Error() string {
	msg := fmt.Sprintf("cmake configure of %s failed: %s", e.Source, e.At.located())
	if e.Hint != "" {
		msg += ": " + e.Hint
	}
	return msg
}

// lastLines returns the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, " | ")
}
