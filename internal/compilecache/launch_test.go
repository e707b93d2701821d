package compilecache

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func literal(a, b string) bool { return a == b }

// TestLaunchPlan: a compile by the HIP compiler goes to the cache without
// its offload job count; its link, the archiver and any other program run
// exactly as given; bad launcher arguments are refused, naming the fault.
func TestLaunchPlan(t *testing.T) {
	const hip, cache = "/opt/rocm/llvm/bin/clang++", "/usr/bin/ccache"
	compile := []string{hip, "-c", "/t/k.hip", "-o", "k.o", "--offload-arch=gfx1030", "-parallel-jobs=8", "-std=c++17"}
	for _, c := range []struct {
		name     string
		args     []string
		path     string
		argv     []string
		parseErr string
	}{
		{name: "HIP compile to the cache", args: append([]string{"--hip=" + hip, "--cache=" + cache, "--"}, compile...),
			path: cache, argv: []string{cache, hip, "-c", "/t/k.hip", "-o", "k.o", "--offload-arch=gfx1030", "-std=c++17"}},
		{name: "HIP compile without a cache", args: append([]string{"--hip=" + hip, "--"}, compile...),
			path: hip, argv: []string{hip, "-c", "/t/k.hip", "-o", "k.o", "--offload-arch=gfx1030", "-std=c++17"}},
		{name: "upstream clang's spelling", args: []string{"--hip=" + hip, "--", hip, "-c", "k.hip", "--offload-jobs=4"},
			path: hip, argv: []string{hip, "-c", "k.hip"}},
		{name: "the HIP compiler linking", args: []string{"--hip=" + hip, "--cache=" + cache, "--", hip, "k.o", "-o", "k", "-parallel-jobs=8"},
			path: hip, argv: []string{hip, "k.o", "-o", "k", "-parallel-jobs=8"}},
		{name: "another program", args: []string{"--hip=" + hip, "--cache=" + cache, "--", "/usr/bin/ar", "rcs", "lib.a", "-c", "-parallel-jobs=8"},
			path: "/usr/bin/ar", argv: []string{"/usr/bin/ar", "rcs", "lib.a", "-c", "-parallel-jobs=8"}},
		{name: "no command", args: []string{"--hip=" + hip, "--"}, parseErr: "no command after --"},
		{name: "no separator", args: []string{"--hip=" + hip, hip, "-c"}, parseErr: "unknown argument"},
		{name: "no compiler", args: []string{"--", "ar"}, parseErr: "no --hip=COMPILER"},
		{name: "nothing", parseErr: "no -- before the command"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := parseLaunch(c.args)
			if c.parseErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.parseErr) {
					t.Fatalf("parseLaunch(%q): %v, want %q", c.args, err, c.parseErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			path, argv := r.plan(literal)
			if path != c.path || !reflect.DeepEqual(argv, c.argv) {
				t.Errorf("plan: %s %q, want %s %q", path, argv, c.path, c.argv)
			}
		})
	}
}

// TestSameProgram: a symlink to the HIP compiler is the HIP compiler; a
// program of the same name elsewhere is not.
func TestSameProgram(t *testing.T) {
	dir := t.TempDir()
	real, link, other := filepath.Join(dir, "clang++-15"), filepath.Join(dir, "clang++"), filepath.Join(dir, "o", "clang++-15")
	for _, f := range []string{real, other} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if !sameProgram(link, real) || sameProgram(other, real) || sameProgram("clang++-15", real) {
		t.Errorf("sameProgram: link %v, other %v, bare name %v; want true, false, false", sameProgram(link, real), sameProgram(other, real), sameProgram("clang++-15", real))
	}
}

// TestLaunchRefusesBadArguments: the launcher's own arguments wrong is
// exit 2 with its name and the fault on stderr; a missing program is 127.
func TestLaunchRefusesBadArguments(t *testing.T) {
	var stderr bytes.Buffer
	if code := launch([]string{"--hip=/x", "ar"}, nil, &stderr); code != 2 || !strings.Contains(stderr.String(), launcherName+": unknown argument \"ar\"") {
		t.Errorf("exit %d, %q; want 2 naming the argument", code, stderr.String())
	}
	stderr.Reset()
	if code := launch([]string{"--hip=/x", "--", filepath.Join(t.TempDir(), "missing")}, nil, &stderr); code != 127 || !strings.Contains(stderr.String(), "missing") {
		t.Errorf("exit %d, %q; want 127 naming the program", code, stderr.String())
	}
}

// FuzzLaunchPlan: whatever the arguments, parsing does not panic; a
// command that is not a compile by the HIP compiler runs exactly as given;
// a HIP compile keeps every argument but the offload job counts, in order.
func FuzzLaunchPlan(f *testing.F) {
	f.Add("--hip=/c\x00--cache=/cc\x00--\x00/c\x00-c\x00k.hip\x00-parallel-jobs=8")
	f.Add("--hip=/c\x00--\x00/usr/bin/ar\x00rcs\x00l.a")
	f.Add("--\x00--hip=/c")
	f.Fuzz(func(t *testing.T, joined string) {
		r, err := parseLaunch(strings.Split(joined, "\x00"))
		if err != nil {
			return
		}
		path, argv := r.plan(literal)
		hipCompile := r.cmd[0] == r.hip && len(r.cmd) > 1 && containsArg(r.cmd[1:], "-c")
		if !hipCompile {
			if path != r.cmd[0] || !reflect.DeepEqual(argv, r.cmd) {
				t.Fatalf("%q: plan %s %q, want the command as given", r.cmd, path, argv)
			}
			return
		}
		if r.cache != "" && (path != r.cache || argv[0] != r.cache) {
			t.Fatalf("%q: plan %s %q, want the cache %s first", r.cmd, path, argv, r.cache)
		}
		got := argv
		if r.cache != "" {
			got = argv[1:]
		}
		var want []string
		for _, a := range r.cmd {
			if !strings.HasPrefix(a, "-parallel-jobs=") && !strings.HasPrefix(a, "--parallel-jobs=") && !strings.HasPrefix(a, "--offload-jobs=") {
				want = append(want, a)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: compile %q, want %q", r.cmd, got, want)
		}
	})
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

// TestLaunchedCommand: a compilation database lists the command behind the
// launcher; any other command stays as it is.
func TestLaunchedCommand(t *testing.T) {
	cmd := []string{"/usr/bin/clang++-15", "-c", "k.hip"}
	if got := LaunchedCommand(append([]string{"/c/rocm/" + launcherName, "--hip=/usr/bin/clang++-15", "--"}, cmd...)); !reflect.DeepEqual(got, cmd) {
		t.Errorf("behind the launcher: %q, want %q", got, cmd)
	}
	if got := LaunchedCommand(cmd); !reflect.DeepEqual(got, cmd) {
		t.Errorf("no launcher: %q, want %q", got, cmd)
	}
}
