package compilecache_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/shellwords"
)

// What a cache miss costs, apart from the compile. A cold build through an
// empty cache runs every compile plus ccache's own work on each miss:
// hashing the compiler, the arguments, the source and every header in the
// depfile, and storing the object. Timing two whole cold builds measures the
// compiles' own spread (±5% between builds of real MLX on an idle 16-core
// machine, docs/benchmarks.md) more than that work. The replay measures it
// alone: each compile of a finished build runs again with the compiler
// replaced by a stand-in that writes the object and the depfile the real
// compile wrote (copied from the build directory and from Ninja's deps log),
// once as it is and once through ccache with mlxbuild's settings and an empty
// cache. The difference is ccache's work on that miss, with the build's real
// headers and objects, and without the compiler's noise.
const (
	replayObjectEnv  = "MLXBUILD_TEST_REPLAY_OBJECT"  // the recorded object the stand-in copies to -o
	replayDepfileEnv = "MLXBUILD_TEST_REPLAY_DEPFILE" // the depfile text it writes to -MF
	replaySelfEnv    = "MLXBUILD_TEST_REPLAY_SELF"    // this test binary, which the stand-in script runs
)

// replayCompiler is the stand-in compiler: it writes the recorded object to
// -o and the recorded depfile to -MF, as the real compile did.
func replayCompiler(object, depfile string, args []string) int {
	out, dep := argAfter(args, "-o"), argAfter(args, "-MF")
	data, err := os.ReadFile(object)
	if err == nil && out != "" {
		err = os.WriteFile(out, data, 0o644)
	}
	if err == nil && dep != "" {
		err = os.WriteFile(dep, []byte(depfile), 0o644)
	}
	if err != nil || out == "" {
		fmt.Fprintf(os.Stderr, "replay compiler: -o %q: %v\n", out, err)
		return 1
	}
	return 0
}

func argAfter(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// recordedCompile is one compile of a finished build, as the replay needs it.
type recordedCompile struct {
	dir     string   // where Ninja ran it
	argv    []string // the compile command, the compiler first
	object  string   // the object it wrote, absolute
	depfile string   // its dependencies from Ninja's deps log, as a depfile
	tookMs  int      // its duration in the build, from .ninja_log
}

// recordedCompiles reads the compiles of the finished build in dir: the
// commands Ninja ran (`ninja -t compdb`: unlike compile_commands.json they
// keep the -MD -MF that make ccache's depend mode apply), Ninja's deps log
// (`ninja -t deps`) and .ninja_log. A compile whose object, deps or log
// entry Ninja does not have is left out and counted in skipped.
func recordedCompiles(ctx context.Context, dir string) (compiles []recordedCompile, skipped int, err error) {
	res, err := proc.Run(ctx, proc.Cmd{Path: "ninja", Args: []string{"-C", dir, "-t", "compdb"}})
	if err != nil {
		return nil, 0, err
	}
	var edges []struct {
		Directory string `json:"directory"`
		Command   string `json:"command"`
		Output    string `json:"output"`
	}
	if err := json.Unmarshal(res.Stdout, &edges); err != nil {
		return nil, 0, fmt.Errorf("ninja -C %s -t compdb: %w", dir, err)
	}
	type entry struct {
		dir, output string
		argv        []string
	}
	var entries []entry
	for _, e := range edges {
		cmds, err := shellwords.Commands(e.Command)
		if err != nil || len(cmds) != 1 || !slices.Contains(cmds[0], "-c") || filepath.Ext(e.Output) != ".o" {
			continue // not a compile: a link, a custom command, a phony
		}
		argv := cmds[0]
		if base := filepath.Base(argv[0]); (base == "ccache" || base == "sccache") && len(argv) > 1 {
			argv = argv[1:] // the build's launcher is no part of the compile
		}
		entries = append(entries, entry{dir: e.Directory, output: e.Output, argv: argv})
	}
	took, err := ninjaLogDurations(filepath.Join(dir, ".ninja_log"))
	if err != nil {
		return nil, 0, err
	}
	var outputs []string
	for _, e := range entries {
		outputs = append(outputs, e.output)
	}
	if len(outputs) == 0 {
		return nil, 0, nil
	}
	res, err = proc.Run(ctx, proc.Cmd{Path: "ninja", Args: append([]string{"-C", dir, "-t", "deps"}, outputs...)})
	if err != nil {
		return nil, 0, err
	}
	deps := ninjaDeps(res.Stdout)
	for _, e := range entries {
		object := e.output
		if !filepath.IsAbs(object) {
			object = filepath.Join(e.dir, object)
		}
		d, ok := deps[e.output]
		if _, err := os.Stat(object); err != nil || !ok || took[e.output] == 0 {
			skipped++
			continue
		}
		compiles = append(compiles, recordedCompile{dir: e.dir, argv: e.argv, object: object, depfile: d, tookMs: took[e.output]})
	}
	return compiles, skipped, nil
}

// ninjaDeps reads `ninja -t deps` (a header line "OUT: #deps N, deps mtime
// M (VALID)", then one indented path per line, then a blank line) into a
// depfile per output. Stale or missing records are left out.
func ninjaDeps(out []byte) map[string]string {
	deps := map[string]string{}
	var cur string
	var b strings.Builder
	flush := func() {
		if cur != "" {
			deps[cur] = b.String() + "\n"
		}
		cur = ""
		b.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "    ") && cur != "":
			b.WriteString(" \\\n  " + strings.ReplaceAll(strings.TrimSpace(line), " ", `\ `))
		case line == "":
			flush()
		default:
			flush()
			if out, rest, ok := strings.Cut(line, ": #deps "); ok && strings.HasSuffix(rest, "(VALID)") {
				cur = out
				b.WriteString(strings.ReplaceAll(out, " ", `\ `) + ":")
			}
		}
	}
	flush()
	return deps
}

// ninjaLogDurations reads .ninja_log (v5: start, end, mtime, output, hash,
// tab separated, milliseconds) into each output's duration in its last run.
func ninjaLogDurations(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	took := map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			continue
		}
		start, err1 := strconv.Atoi(f[0])
		end, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			took[f[3]] = end - start
		}
	}
	return took, nil
}

// replayer runs recorded compiles plain and through ccache.
type replayer struct {
	cfg     *compilecache.Config
	env     []string // mlxbuild's ccache settings (Setup), CCACHE_DIR last
	scratch string
	bin     string // where the stand-in compilers are
	self    string
}

func newReplayer(t testing.TB, buildDir string) *replayer {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &compilecache.Config{Tool: "ccache"}
	scratch := t.TempDir()
	_, env, err := cfg.Setup(scratch, filepath.Dir(buildDir))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(scratch, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return &replayer{cfg: cfg, env: env, scratch: scratch, bin: bin, self: self}
}

// standIn returns the stand-in for compiler: a script named as the compiler
// really is (ccache tells GCC from Clang by the name), padded with the real
// compiler's bytes so that ccache's content check hashes as much as it
// would (sh runs the exec on its second line and never reads the padding).
func (r *replayer) standIn(compiler string) (string, error) {
	real, err := filepath.EvalSymlinks(compiler)
	if err != nil {
		return "", err
	}
	path := filepath.Join(r.bin, filepath.Base(real))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	pad, err := os.ReadFile(real)
	if err != nil {
		return "", err
	}
	script := "#!/bin/sh\nexec \"$" + replaySelfEnv + "\" \"$@\"\n"
	return path, os.WriteFile(path, append([]byte(script), pad...), 0o755)
}

// run replays c once, plain or through ccache with an empty cache, and
// returns its wall time. Through ccache it must have been a miss.
func (r *replayer) run(ctx context.Context, c recordedCompile, viaCcache bool) (time.Duration, error) {
	if viaCcache {
		if err := os.RemoveAll(r.cacheDir()); err != nil {
			return 0, err
		}
	}
	took, err := r.exec(ctx, c, viaCcache)
	if err != nil || !viaCcache {
		return took, err
	}
	st, err := r.cfg.Stats(ctx, append(r.env, "CCACHE_DIR="+r.cacheDir()))
	if err != nil {
		return 0, err
	}
	if st.Misses != 1 || st.Hits != 0 {
		return 0, fmt.Errorf("%s through ccache: %+v, want one miss", c.object, st)
	}
	return took, nil
}

// again replays c through ccache into the cache the last run left.
func (r *replayer) again(ctx context.Context, c recordedCompile) error {
	_, err := r.exec(ctx, c, true)
	return err
}

func (r *replayer) cacheDir() string { return filepath.Join(r.scratch, "ccache") }

// exec runs c's command with the stand-in compiler writing into scratch,
// through ccache or not.
func (r *replayer) exec(ctx context.Context, c recordedCompile, viaCcache bool) (time.Duration, error) {
	fake, err := r.standIn(c.argv[0])
	if err != nil {
		return 0, err
	}
	argv := append([]string{fake}, c.argv[1:]...)
	for i := 1; i+1 < len(argv); i++ {
		switch argv[i] {
		case "-o":
			argv[i+1] = filepath.Join(r.scratch, "out.o")
		case "-MF":
			argv[i+1] = filepath.Join(r.scratch, "out.d")
		}
	}
	env := append(os.Environ(), r.env...)
	env = append(env, "CCACHE_DIR="+r.cacheDir(), replayObjectEnv+"="+c.object, replayDepfileEnv+"="+c.depfile, replaySelfEnv+"="+r.self)
	cmd := proc.Cmd{Path: argv[0], Args: argv[1:], Dir: c.dir, Env: env}
	if viaCcache {
		cmd = proc.Cmd{Path: "ccache", Args: argv, Dir: c.dir, Env: env}
	}
	res, err := proc.Run(ctx, cmd)
	if err != nil {
		return 0, err
	}
	return res.Duration, nil
}

// standInBuild configures and builds a small C++ library with CMake and
// Ninja (a few sources sharing headers, the system's too) and returns its
// build directory: what the replay reads when no real build is named.
func standInBuild(t testing.TB) string {
	src := filepath.Join(t.TempDir(), "src")
	files := map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(standin CXX)\nadd_library(standin STATIC a.cpp b.cpp c.cpp)\n",
		"shared.h":       "#pragma once\n#include <vector>\n#include <string>\n#include <map>\ninline int shared(int x) { return x * 3; }\n",
	}
	for i, n := range []string{"a", "b", "c"} {
		files[n+".cpp"] = fmt.Sprintf("#include \"shared.h\"\nint %s(int x) { std::map<std::string, std::vector<int>> m; m[\"k\"].push_back(x); return shared(m[\"k\"][0]) + %d; }\n", n, i)
	}
	for name, body := range files {
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := filepath.Join(filepath.Dir(src), "build")
	ctx := context.Background()
	for _, args := range [][]string{
		{"-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_CXX_COMPILER=/usr/bin/g++"},
		{"--build", build},
	} {
		if res, err := proc.Run(ctx, proc.Cmd{Path: "cmake", Args: args}); err != nil {
			t.Fatalf("cmake %s: %v\n%s", strings.Join(args, " "), err, res.Stdout)
		}
	}
	return build
}
