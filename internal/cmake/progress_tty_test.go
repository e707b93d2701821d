package cmake

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// fakeTTY stands in for the user's terminal: it keeps everything shown and
// can say what the updating line shows now.
type fakeTTY struct{ testutil.LockedBuffer }

// lines are the states the updating line went through, in order.
func (f *fakeTTY) lines() []string {
	return strings.Split(strings.TrimSuffix(f.String(), "\n"), "\r\x1b[K")[1:]
}

func (f *fakeTTY) now() string {
	if l := f.lines(); len(l) > 0 {
		return l[len(l)-1]
	}
	return ""
}

// slowNinja writes a Ninja project in CMake's wording: a fast C++ compile
// that prints a note, and a HIP compile (its source at hipPath) that runs
// until the file "release" appears, after it wrote "started".
func slowNinja(t *testing.T, hipPath string) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `rule fast
  command = echo "note: fast output" && touch $out
  description = Building CXX object CMakeFiles/mlx.dir/mlx/fast.cpp.o
rule slow
  command = touch started && while [ ! -e release ]; do sleep 0.02; done && touch $out
  description = Building HIP object `+hipPath+`.o
build fast.o: fast
build slow.o: slow
default fast.o slow.o
`)
	return dir
}

// buildOnTTY runs Build on dir with a fake terminal of the given width;
// while the slow edge runs it calls during, then releases the edge.
func buildOnTTY(t *testing.T, dir string, width int, during func(tty *fakeTTY)) (*fakeTTY, BuildResult, error) {
	t.Helper()
	tty := &fakeTTY{}
	type out struct {
		res BuildResult
		err error
	}
	done := make(chan out, 1)
	// A test that fails while the edge waits still lets it end.
	t.Cleanup(func() { _ = os.WriteFile(filepath.Join(dir, "release"), nil, 0o644) })
	go func() {
		res, err := Build(context.Background(), BuildOptions{Dir: dir, Jobs: 2, Progress: tty, TTY: true, Width: width})
		done <- out{res, err}
	}()
	waitFor(t, "the slow edge to start", func() bool { return fileExists(filepath.Join(dir, "started")) })
	during(tty)
	testutil.WriteFile(t, filepath.Join(dir, "release"), "")
	select {
	case o := <-done:
		return tty, o.res, o.err
	case <-time.After(30 * time.Second):
		t.Fatal("the build did not end after its slow edge was released")
	}
	return nil, BuildResult{}, nil
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestTTYShowsTheRunningEdge: while the slow HIP compile runs after the
// fast C++ one finished, the line names the HIP file (a pipe would still
// show the C++ one); the log holds Ninja's lines without control codes.
func TestTTYShowsTheRunningEdge(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sh")
	if runtime.GOOS != "linux" {
		t.Skip("Ninja gets a pseudo-terminal on Linux only")
	}
	dir := slowNinja(t, "mlx/backend/rocm/CMakeFiles/k.dir/binary.hip")
	var shown string
	tty, res, err := buildOnTTY(t, dir, 80, func(tty *fakeTTY) {
		// The edge started; its status line is on its way through the terminal.
		waitFor(t, "the line to name the running edge", func() bool {
			shown = tty.now()
			return strings.Contains(shown, "binary.hip")
		})
		if strings.Contains(shown, "fast") {
			t.Errorf("the line %q names the finished edge", shown)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, "[") || !strings.Contains(shown, "] HIP mlx/backend/rocm/binary.hip") {
		t.Errorf("while the HIP edge ran the line was %q", shown)
	}
	if got := stepsOf(res); len(got) != 2 || res.Steps != 2 || res.Total != 2 {
		t.Errorf("steps %q (%d), total %d", got, res.Steps, res.Total)
	}
	if l := tty.lines(); !strings.HasPrefix(l[len(l)-1], "[2/2] ") {
		t.Errorf("the last line %q is not the end of the build", l[len(l)-1])
	}

	// The log: every line Ninja printed, none of its terminal codes, each
	// edge's start and finish, and the edges' own output on its own line.
	b, err := os.ReadFile(res.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if strings.ContainsAny(log, "\r\x1b") {
		t.Errorf("the log keeps terminal codes:\n%q", log)
	}
	for _, want := range []string{
		"\nninja: Entering directory `" + dir + "'\n",
		"\n[mlxbuild 0/2 s2 r2] Building HIP object mlx/backend/rocm/CMakeFiles/k.dir/binary.hip.o\n",
		"\nnote: fast output\n",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	// The HIP edge's end: last as a rule, but on a loaded machine the fast
	// edge's shell can still be starting when the slow one is released.
	hipEnd := " Building HIP object mlx/backend/rocm/CMakeFiles/k.dir/binary.hip.o\n"
	if !strings.Contains(log, "\n[mlxbuild 2/2 s2 r1]"+hipEnd) && !strings.Contains(log, "\n[mlxbuild 1/2 s2 r2]"+hipEnd) {
		t.Errorf("the log lacks the HIP edge's end:\n%s", log)
	}
}

// TestTTYLineFitsTheWidth: with a path far longer than the terminal, no
// line drawn is longer than the width less one, and each keeps the file name.
func TestTTYLineFitsTheWidth(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sh")
	long := strings.Repeat("very/long/directory/", 12) + "CMakeFiles/k.dir/unary.hip"
	dir := slowNinja(t, long)
	const width = 50
	tty, _, err := buildOnTTY(t, dir, width, func(tty *fakeTTY) {
		waitFor(t, "the line to name the running edge", func() bool { return strings.Contains(tty.now(), "unary.hip") })
	})
	if err != nil {
		t.Fatal(err)
	}
	slow := 0
	for _, l := range tty.lines() {
		if len(l) > width-1 {
			t.Errorf("line %q (%d bytes) for a width of %d", l, len(l), width)
		}
		if strings.Contains(l, "HIP ") {
			slow++
			if !strings.Contains(l, "] HIP ...") || !strings.HasSuffix(l, "/unary.hip") {
				t.Errorf("line %q does not keep the kind and the file name", l)
			}
		}
	}
	if slow == 0 {
		t.Errorf("no line named the long edge: %q", tty.lines())
	}
}

// TestTTYFailureKeepsTheWholeError: a failing edge's error, coloured as a
// compiler forced to colour prints it and longer than any terminal, reaches
// the error whole and plain, and the log has it too.
func TestTTYFailureKeepsTheWholeError(t *testing.T) {
	testutil.NeedTools(t, "ninja", "sh", "printf")
	dir := t.TempDir()
	msg := "no member named " + strings.Repeat("x", 300) + " in namespace mlx::core"
	testutil.WriteFile(t, filepath.Join(dir, "build.ninja"), `rule bad
  command = printf '\033[1m/src/mlx/bad.cpp:3:5: \033[0;1;31merror: \033[0;1m`+msg+`\033[0m\n' >&2; exit 1
  description = Building CXX object CMakeFiles/mlx.dir/mlx/bad.cpp.o
build bad.o: bad
`)
	tty := &fakeTTY{}
	res, err := Build(context.Background(), BuildOptions{Dir: dir, Progress: tty, TTY: true, Width: 80})
	var be *BuildError
	if !errors.As(err, &be) {
		t.Fatalf("want a *BuildError, got %v", err)
	}
	want := "/src/mlx/bad.cpp:3:5: error: " + msg
	if be.FirstError != want || !strings.Contains(err.Error(), want) || len(res.Errors) != 1 {
		t.Errorf("error %q, errors %+v; want %q", err, res.Errors, want)
	}
	b, _ := os.ReadFile(res.LogPath)
	if !strings.Contains(string(b), "\n"+want+"\n") || !strings.Contains(string(b), "\nFAILED: bad.o \n") {
		t.Errorf("the log lacks the plain error or Ninja's FAILED line:\n%q", b)
	}
}

// ptyBuild is real Ninja 1.11 output on mlxbuild's pseudo-terminal (-j2:
// two compiles, a HIP one that outlasts the first, a link), as recorded in
// testdata/fuzz/FuzzNinjaProgress/pty-build-j2.
const ptyBuild = "ninja: Entering directory `b'\n" +
	"\r[mlxbuild 0/4 s1 r1] Building CXX object CMakeFiles/mlx.dir/mlx/a.cpp.o\x1b[K" +
	"\r[mlxbuild 0/4 s2 r2] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o\x1b[K" +
	"\r[mlxbuild 1/4 s2 r2] Building CXX object CMakeFiles/mlx.dir/mlx/a.cpp.o\x1b[K\nnote: a\n" +
	"\r[mlxbuild 1/4 s3 r2] Building CXX object CMakeFiles/mlx.dir/mlx/c.cpp.o\x1b[K" +
	"\r[mlxbuild 2/4 s3 r2] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o\x1b[K" +
	"\r[mlxbuild 3/4 s3 r1] Building CXX object CMakeFiles/mlx.dir/mlx/c.cpp.o\x1b[K\nnote: c\n" +
	"\r[mlxbuild 3/4 s4 r1] Linking CXX static library libmlx.a\x1b[K" +
	"\r[mlxbuild 4/4 s4 r1] Linking CXX static library libmlx.a\x1b[K\n"

// TestProgressFollowsStarts: each redraw names the last-started edge that
// still runs, with the count when more run; the log is Ninja's lines, each
// status on its own; steps are the finishes in order.
func TestProgressFollowsStarts(t *testing.T) {
	var log, out strings.Builder
	p := newProgress(&log, &out, true, 80)
	for i := 0; i < len(ptyBuild); i += 7 { // in pieces that cut escape codes
		p.Write([]byte(ptyBuild[i:min(i+7, len(ptyBuild))]))
	}
	p.finish()
	want := []string{
		"[0/4] CXX mlx/a.cpp",
		"[0/4, 2 running] HIP mlx/backend/rocm/binary.hip",
		"[1/4] HIP mlx/backend/rocm/binary.hip",
		"[1/4, 2 running] CXX mlx/c.cpp",
		"[2/4] CXX mlx/c.cpp",
		"[3/4] CXX mlx/c.cpp",
		"[3/4] LINK libmlx.a",
		"[4/4] LINK libmlx.a",
	}
	if got := strings.Join(want, "\r\x1b[K"); out.String() != "\r\x1b[K"+got+"\n" {
		t.Errorf("shown\n %q\nwant\n %q", out.String(), "\r\x1b[K"+got+"\n")
	}
	wantLog := "ninja: Entering directory `b'\n" +
		"[mlxbuild 0/4 s1 r1] Building CXX object CMakeFiles/mlx.dir/mlx/a.cpp.o\n" +
		"[mlxbuild 0/4 s2 r2] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o\n" +
		"[mlxbuild 1/4 s2 r2] Building CXX object CMakeFiles/mlx.dir/mlx/a.cpp.o\nnote: a\n" +
		"[mlxbuild 1/4 s3 r2] Building CXX object CMakeFiles/mlx.dir/mlx/c.cpp.o\n" +
		"[mlxbuild 2/4 s3 r2] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o\n" +
		"[mlxbuild 3/4 s3 r1] Building CXX object CMakeFiles/mlx.dir/mlx/c.cpp.o\nnote: c\n" +
		"[mlxbuild 3/4 s4 r1] Linking CXX static library libmlx.a\n" +
		"[mlxbuild 4/4 s4 r1] Linking CXX static library libmlx.a\n"
	if log.String() != wantLog {
		t.Errorf("log\n%s\nwant\n%s", log.String(), wantLog)
	}
	var steps []string
	for _, s := range p.steps {
		steps = append(steps, s.Display)
	}
	if strings.Join(steps, ",") != "CXX mlx/a.cpp,HIP mlx/backend/rocm/binary.hip,CXX mlx/c.cpp,LINK libmlx.a" || p.total != 4 || len(p.running) != 0 {
		t.Errorf("steps %q, total %d, still running %v", steps, p.total, p.running)
	}
}

// TestRunningFollowsNinjasCount: an edge whose finish Ninja held back (a
// console job ran) is dropped once Ninja's running count says it ended.
func TestRunningFollowsNinjasCount(t *testing.T) {
	var r runningEdges
	for _, l := range []string{
		"[mlxbuild 0/3 s1 r1] Building CXX object CMakeFiles/m.dir/a.cpp.o",
		"[mlxbuild 0/3 s2 r2] Running the console job",
		// a.cpp's finish was held back; c.cpp starts with one running.
		"[mlxbuild 2/3 s3 r1] Building CXX object CMakeFiles/m.dir/c.cpp.o",
	} {
		st, ok := parseStatus(l)
		if !ok {
			t.Fatalf("%q is no status line", l)
		}
		r = r.update(st)
	}
	if len(r) != 1 || r[0].Display != "CXX c.cpp" {
		t.Errorf("running %+v, want only c.cpp", r)
	}
}

// TestShortenKeepsCharactersWhole: a path with multi-byte characters is
// cut between characters, within the width.
func TestShortenKeepsCharactersWhole(t *testing.T) {
	text := "[1/2] CXX " + strings.Repeat("données/", 10) + "é.cpp"
	for w := 21; w < len(text); w++ {
		got := shorten(text, w)
		if len(got) > w || !utf8.ValidString(got) || !strings.HasPrefix(got, "[1/2] CXX ...") {
			t.Fatalf("width %d: %q", w, got)
		}
	}
}

// TestTTYFollowsACMakeRerun: a build on a terminal after CMakeLists.txt
// changed runs CMake from Ninja's console pool (a start Ninja never shows
// finishing) and then restarts its counts; the line follows the new count
// to its end and nothing is left counted as running.
func TestTTYFollowsACMakeRerun(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "mlx")
	testutil.CopyTree(t, filepath.Join(exampleDir, "mlx"), src)
	build := filepath.Join(t.TempDir(), "build")
	if err := Configure(ctx, ConfigureOptions{Source: src, Build: build}); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(ctx, BuildOptions{Dir: build}); err != nil {
		t.Fatal(err)
	}
	lists := filepath.Join(src, "CMakeLists.txt")
	b, err := os.ReadFile(lists)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, lists, string(b)+"\n# changed\n")
	testutil.WriteFile(t, filepath.Join(src, "mlx", "version.cpp"), "// changed\n"+readFile(t, filepath.Join(src, "mlx", "version.cpp")))
	tty := &fakeTTY{}
	res, err := Build(ctx, BuildOptions{Dir: build, Progress: tty, TTY: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[0/1] Re-running CMake...", "[0/2] CXX mlx/version.cpp", "[1/2] CXX mlx/version.cpp", "[1/2] LINK libmlx.a", "[2/2] LINK libmlx.a"}
	if got := tty.lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
	if got := stepsOf(res); !reflect.DeepEqual(got, []string{"CXX mlx/version.cpp", "LINK libmlx.a"}) || res.Total != 2 {
		t.Errorf("steps %q, total %d", got, res.Total)
	}
	log := readFile(t, res.LogPath)
	if !strings.Contains(log, "] Re-running CMake...\n-- Configuring done\n") || strings.ContainsAny(log, "\r\x1b") {
		t.Errorf("the log:\n%q", log)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
