package cmake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/shellwords"
)

// CompileDBFile is the compilation database CMake writes into the build
// directory (CMAKE_EXPORT_COMPILE_COMMANDS), which clangd and clang-tidy read.
const CompileDBFile = "compile_commands.json"

// compileDBStampFile records the identity of the compilation database as
// CompleteCompileDB last left it (an internal/memo entry of kind
// compileDBKind), so a build that did not regenerate costs one stat, not a
// Ninja run.
const (
	compileDBStampFile = "mlxbuild-compdb.stamp"
	compileDBKind      = "compdb"
)

// compileDBFormat names the entries CompleteCompileDB adds; a new value
// makes every build directory's database complete itself again.
const compileDBFormat = "mlxbuild-compdb v1"

// hipSourceExts are the sources that projects with the ROCm fork's build
// model compile with one add_custom_command each (hipcc -c x.hip -o x.o),
// which CMake leaves out of its database: it lists only the compiles of
// languages it knows.
var hipSourceExts = []string{".hip"}

// CompileDBResult is what CompleteCompileDB found and did.
type CompileDBResult struct {
	Path string
	// Absent: CMake wrote no database (the project turned
	// CMAKE_EXPORT_COMPILE_COMMANDS off; CMake 3.25 also writes none when
	// no target compiles a language it knows, never so for MLX), so none
	// was made.
	Absent bool
	// Current: the database was complete since the last run; nothing was read.
	Current bool
	Added   int  // custom-command HIP compiles the database lists
	Written bool // the file's content changed
	// Skipped names each custom command that compiles a HIP source but
	// whose command line is not a fixed list of arguments (it expands a
	// variable, pipes, ...), with why; the database cannot hold it.
	Skipped []string
}

// compileEntry is one compilation database entry as mlxbuild writes it:
// the argument vector, never a shell string, so no reader has to unquote.
type compileEntry struct {
	Directory string   `json:"directory"`
	File      string   `json:"file"`
	Arguments []string `json:"arguments"`
}

// ninjaCompdbEdge is one entry of `ninja -t compdb`.
type ninjaCompdbEdge struct {
	Directory string `json:"directory"`
	Command   string `json:"command"`
	File      string `json:"file"`
	Output    string `json:"output"`
}

// CompleteCompileDB adds to the build directory's compile_commands.json an
// entry for every custom-command HIP compile of its build.ninja, keeping
// every entry CMake wrote. Run it after each configure and after each build
// (Ninja re-runs CMake by itself, which rewrites the file without them). The
// result depends only on CMake's entries and build.ninja, so a second run
// writes the same bytes, and the file is left alone (its mtime too) while
// CMake has not rewritten it.
func CompleteCompileDB(ctx context.Context, dir string) (CompileDBResult, error) {
	res := CompileDBResult{Path: filepath.Join(dir, CompileDBFile)}
	stampPath := filepath.Join(dir, compileDBStampFile)
	_, err := os.Stat(res.Path)
	if os.IsNotExist(err) {
		res.Absent = true
		return res, nil
	}
	if err != nil {
		return res, fmt.Errorf("reading %s: %w", res.Path, err)
	}
	if _, ok := memo.Load(stampPath, compileDBKind, compileDBKeys, os.Getenv); ok {
		res.Current = true
		return res, nil
	}
	// Taken before reading: a database CMake rewrites meanwhile is not
	// recorded as complete.
	id := memo.Of(res.Path)
	data, err := os.ReadFile(res.Path)
	if err != nil {
		return res, fmt.Errorf("reading %s: %w", res.Path, err)
	}
	kept, dropped, err := cmakeEntries(data)
	if err != nil {
		return res, fmt.Errorf("%s is not a compilation database (%v): delete the build directory %s and build again", res.Path, err, dir)
	}
	edges, err := customCommands(ctx, dir)
	if err != nil {
		return res, err
	}
	var added []compileEntry
	for _, e := range edges {
		entries, err := hipCompiles(e)
		if err != nil {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", e.Output, err))
			continue
		}
		for _, c := range entries {
			if !slices.ContainsFunc(added, func(a compileEntry) bool { return sameEntry(a, c) }) {
				added = append(added, c)
			}
		}
	}
	res.Added = len(added)
	// With nothing to add or drop, CMake's file stays byte for byte.
	if len(added) > 0 || dropped > 0 {
		out, err := renderCompileDB(kept, added)
		if err != nil {
			return res, err
		}
		o := atomicfile.Options{Perm: 0o644, What: "compilation database", TempPattern: tempPattern(CompileDBFile)}
		if res.Written, err = o.WriteIfChanged(res.Path, out); err != nil {
			return res, err
		}
		id = memo.Of(res.Path)
	}
	memo.Store(stampPath, compileDBKind, memo.Entry{Keys: compileDBKeys, Files: []string{id.Key()}})
	return res, nil
}

// compileDBKeys key the stamp by compileDBFormat.
var compileDBKeys = [][2]string{{"format", compileDBFormat}}

// tempPattern names the temporary file of an atomic write of name the way
// cache.RemoveStaleTemps finds what a killed run left in the build directory.
func tempPattern(name string) string { return ".tmp-" + name + "-*" }

// cmakeEntries returns the database's entries less those mlxbuild added
// before: an entry with "arguments" for a HIP source. CMake writes
// "command" strings only, so none of its entries is dropped.
func cmakeEntries(data []byte) (kept []json.RawMessage, dropped int, err error) {
	var all []json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, 0, err
	}
	for i, raw := range all {
		var e struct {
			File      string   `json:"file"`
			Arguments []string `json:"arguments"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, 0, fmt.Errorf("entry %d: %w", i+1, err)
		}
		if e.Arguments != nil && slices.Contains(hipSourceExts, filepath.Ext(e.File)) {
			dropped++
			continue
		}
		kept = append(kept, raw)
	}
	return kept, dropped, nil
}

// customCommands lists the build's custom command edges as Ninja runs them
// (its variables expanded, its $$ unescaped).
func customCommands(ctx context.Context, dir string) ([]ninjaCompdbEdge, error) {
	ninja, err := ninjaFor(dir)
	if err != nil {
		return nil, err
	}
	run, err := proc.Run(ctx, proc.Cmd{Path: ninja, Args: []string{"-C", dir, "-t", "compdb", "CUSTOM_COMMAND"}})
	if err != nil {
		return nil, fmt.Errorf("listing the custom commands of %s: %w", dir, err)
	}
	var edges []ninjaCompdbEdge
	if err := json.Unmarshal(run.Stdout, &edges); err != nil {
		return nil, fmt.Errorf("reading `%s -t compdb` of %s: %w; use Ninja 1.10 or newer", ninja, dir, err)
	}
	return edges, nil
}

// hipCompiles returns the entries of one custom command: one for each HIP
// source that a simple command of it compiles (-c), in the directory that
// command runs in. A command that names no HIP source gives none, whatever
// its shell; one that does but is not a fixed argument list is an error.
func hipCompiles(e ninjaCompdbEdge) ([]compileEntry, error) {
	out, err := hipCompilesOf(e)
	if err != nil && !mentionsHIPSource(e.Command) {
		return nil, nil
	}
	return out, err
}

func hipCompilesOf(e ninjaCompdbEdge) ([]compileEntry, error) {
	cmds, err := shellwords.Commands(e.Command)
	if err != nil {
		return nil, err
	}
	cwd := e.Directory
	var out []compileEntry
	for _, argv := range cmds {
		// mlxbuild's own launcher in front of a custom command
		// (RULE_LAUNCH_CUSTOM) is no part of the compile.
		argv = compilecache.LaunchedCommand(argv)
		if argv[0] == "cd" {
			if len(argv) != 2 {
				return nil, fmt.Errorf("cd with %d arguments", len(argv)-1)
			}
			cwd = absIn(cwd, argv[1])
			continue
		}
		for _, src := range hipSources(argv) {
			out = append(out, compileEntry{Directory: cwd, File: absIn(cwd, src), Arguments: argv})
		}
	}
	return out, nil
}

// hipSources returns the HIP sources argv compiles: with -c, each argument
// with a HIP source's extension that is neither an option nor -o's value.
func hipSources(argv []string) []string {
	if !slices.Contains(argv[1:], "-c") {
		return nil
	}
	var srcs []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-o" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") && slices.Contains(hipSourceExts, filepath.Ext(a)) {
			srcs = append(srcs, a)
		}
	}
	return srcs
}

func mentionsHIPSource(command string) bool {
	for _, ext := range hipSourceExts {
		if strings.Contains(command, ext) {
			return true
		}
	}
	return false
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

func sameEntry(a, b compileEntry) bool {
	return a.Directory == b.Directory && a.File == b.File && slices.Equal(a.Arguments, b.Arguments)
}

// renderCompileDB writes CMake's entries as CMake wrote them, then the added
// ones, in CMake's layout: one object per entry, indented by two spaces.
func renderCompileDB(kept []json.RawMessage, added []compileEntry) ([]byte, error) {
	items := make([][]byte, 0, len(kept)+len(added))
	for _, raw := range kept {
		items = append(items, bytes.TrimSpace(raw))
	}
	for _, e := range added {
		var one bytes.Buffer
		enc := json.NewEncoder(&one)
		enc.SetEscapeHTML(false) // keep <, > and & of arguments readable
		enc.SetIndent("", "  ")
		if err := enc.Encode(e); err != nil {
			return nil, fmt.Errorf("encoding the entry of %s: %w", e.File, err)
		}
		items = append(items, bytes.TrimSpace(one.Bytes()))
	}
	var b bytes.Buffer
	b.WriteString("[\n")
	b.Write(bytes.Join(items, []byte(",\n")))
	if len(items) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
