package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/magefile/mage/mage"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// TestMain registers Mage as the command "mage" of the scripts. It runs in
// this test binary (a copy placed on PATH), so exit codes are Mage's own:
// `go run mage.go` would collapse every failure to 1.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mage":     func() { os.Exit(mage.Main()) },
		"hidelibs": func() { os.Exit(hideLibs()) },
	})
}

// TestScripts runs every testdata/script/*.txtar. Each script is a parent
// repository: go.mod requiring github.com/mlxbuild/mlxbuild (replaced by
// this checkout, linked as $WORK/mlxbuild), a magefile importing targets,
// mlxbuild.yaml and a tiny MLX-shaped CMake project.
func TestScripts(t *testing.T) {
	env, err := goEnv()
	if err != nil {
		t.Fatal(err)
	}
	src, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(e *testscript.Env) error {
			return setup(e, src, env)
		},
		Condition: condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"parent":   cmdParent,
			"exits":    cmdExits,
			"link":     cmdLink,
			"fakerocm": cmdFakeROCm,
			"sleep":    cmdSleep,
		},
	})
}

// setup gives a script an offline Go toolchain that resolves the parent
// module: this checkout as $WORK/mlxbuild (go.mod replaces the module with
// ./mlxbuild), its go.sum, the real module and build caches (read through
// GOPROXY=off, so nothing is downloaded) and a Mage cache per script (Mage
// keys its cache on the magefile's text only, so a shared cache would run a
// binary built against an older mlxbuild).
func setup(e *testscript.Env, src string, goenv map[string]string) error {
	if err := os.Symlink(src, filepath.Join(e.WorkDir, "mlxbuild")); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(src, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(e.WorkDir, "go.sum"), sum, 0o644); err != nil {
		return err
	}
	realHome, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	mage, err := exec.LookPath("mage")
	if err != nil {
		return fmt.Errorf("the mage command of TestMain is not on PATH: %v", err)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	home := filepath.Join(e.WorkDir, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	for k, v := range map[string]string{
		"MLXBUILD_SRC": src,
		// For scripts that narrow PATH: where mage and go are.
		"MAGE_DIR":       filepath.Dir(mage),
		"GO_DIR":         filepath.Dir(gobin),
		"HOME":           home,
		"GOCACHE":        goenv["GOCACHE"],
		"GOMODCACHE":     goenv["GOMODCACHE"],
		"GOPATH":         goenv["GOPATH"],
		"GOTOOLCHAIN":    "local",
		"GOFLAGS":        "-mod=mod",
		"GOPROXY":        "off",
		"GOSUMDB":        "off",
		"MAGEFILE_CACHE": filepath.Join(e.WorkDir, ".magefile"),
		"NO_COLOR":       "1",
		"MLXBUILD_JOBS":  "2",
		"CI":             os.Getenv("CI"),
		// Cargo's home as the caller has it (.ci/run makes a fresh one; a
		// developer's rustup cargo finds its toolchains from the real
		// home); no script fetches a crate.
		"RUSTUP_HOME":       orDefault(os.Getenv("RUSTUP_HOME"), filepath.Join(realHome, ".rustup")),
		"CARGO_HOME":        orDefault(os.Getenv("CARGO_HOME"), filepath.Join(realHome, ".cargo")),
		"CARGO_NET_OFFLINE": "true",
	} {
		e.Setenv(k, v)
	}
	return nil
}

// condition adds [rocm] (Debian's ROCm toolchain is installed) and [cargo]
// (cargo and Debian's cc crate).
// Under CI both are always true, so a script that needs the tool fails there
// instead of skipping; only a developer machine may skip it.
func condition(cond string) (bool, error) {
	switch cond {
	case "rocm":
		return haveROCm() || os.Getenv("CI") != "", nil
	case "privatemounts":
		// A mount namespace whose mounts do not reach the machine's: root,
		// and / a mount point (in a chroot it is not, and unshare cannot
		// make it private). Where it cannot be made, a script proves what it
		// can without one.
		return privateMounts(), nil
	case "cargo":
		// The scripts' workspaces take the cc crate from Debian's registry.
		_, err := exec.LookPath("cargo")
		crates, _ := filepath.Glob("/usr/share/cargo/registry/cc-*")
		return (err == nil && len(crates) > 0) || os.Getenv("CI") != "", nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// privateMounts says whether unshare can make a private mount namespace
// here (the test runs it once; it changes nothing outside the namespace).
func privateMounts() bool {
	privateMountsOnce.Do(func() {
		privateMountsOK = exec.Command("unshare", "--mount", "--propagation", "private", "true").Run() == nil
	})
	return privateMountsOK
}

var (
	privateMountsOnce sync.Once
	privateMountsOK   bool
)

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func haveROCm() bool {
	_, err := os.Stat("/usr/bin/hipcc")
	return err == nil
}

// goEnv reads the real toolchain's caches once, so every script builds with
// what the machine already has.
func goEnv() (map[string]string, error) {
	keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: "go", Args: append([]string{"env"}, keys...)})
	if err != nil {
		return nil, fmt.Errorf("reading the Go caches with go env failed: %v; check that go is on PATH", err)
	}
	lines := strings.Split(string(bytes.TrimSpace(res.Stdout)), "\n")
	if len(lines) != len(keys) {
		return nil, fmt.Errorf("go env printed %d lines for %d variables", len(lines), len(keys))
	}
	env := map[string]string{}
	for i, k := range keys {
		env[k] = lines[i]
	}
	return env, nil
}

// parentArchive is the shared parent repository, unpacked by `parent`.
var parentArchive = filepath.Join("testdata", "parent.txtar")

// cmdParent unpacks testdata/parent.txtar into $WORK, keeping every file the
// script's own archive already wrote, so a script lists only what differs
// from the shared parent repository.
func cmdParent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: parent")
	}
	a, err := txtar.ParseFile(parentArchive)
	ts.Check(err)
	for _, f := range a.Files {
		path := ts.MkAbs(f.Name)
		if _, err := os.Stat(path); err == nil {
			continue
		}
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		ts.Check(os.WriteFile(path, f.Data, 0o644))
	}
}

// cmdSleep waits for a duration: `sleep 50ms` (this testscript has no
// sleep of its own). A script uses it where a file written just before must
// be older than a clock tick for what follows.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	if err != nil {
		ts.Fatalf("sleep: %v", err)
	}
	time.Sleep(d)
}

// cmdExits runs a program like exec and fails unless it exits with the
// given status: `exits 2 mage build:rocm`. testscript's `! exec` only tells
// zero from non-zero, and mlxbuild promises 1 for a failure and 2 for bad
// configuration or usage.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: status %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %s did not run: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdLink builds a consumer the way a Makefile would from ldflags.txt:
// `link OUT FLAGSFILE c++-args...` runs c++ with the arguments, -o OUT and
// the file's flags last (libraries after the sources that use them).
func cmdLink(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: link OUT FLAGSFILE c++-args...")
	}
	flags := strings.Fields(ts.ReadFile(args[1]))
	cxx := append(append(append([]string(nil), args[2:]...), "-o", args[0]), flags...)
	if err := ts.Exec("c++", cxx...); err != nil {
		ts.Fatalf("linking %s with %s failed: %v", args[0], args[1], err)
	}
}

// debianROCm is where Debian 12 installs the pieces of ROCm that a fake
// prefix links to.
var debianROCm = map[string]string{
	"include": "/usr/include",
	"lib":     "/usr/lib",
	"llvm":    "/usr/lib/llvm-15",
}

// cmdFakeROCm makes a ROCm prefix whose rocminfo the script controls:
// `fakerocm DIR ROCMINFO` links DIR/include, DIR/lib and DIR/llvm to
// Debian's ROCm, wraps hipcc and hipconfig (they find their Perl halves
// next to themselves, so a link would not do) and installs the script file
// ROCMINFO as DIR/bin/rocminfo. With ROCM_PATH=DIR, mlxbuild's probes see a
// GPU, or none, on any machine; compiles use the real toolchain.
func cmdFakeROCm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fakerocm DIR ROCMINFO")
	}
	if !haveROCm() {
		ts.Fatalf("fakerocm: Debian's ROCm toolchain is missing (/usr/bin/hipcc); install it as .ci/run does")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Join(dir, "bin"), 0o755))
	for name, target := range debianROCm {
		ts.Check(os.Symlink(target, filepath.Join(dir, name)))
	}
	for _, tool := range []string{"hipcc", "hipconfig"} {
		wrapper := "#!/bin/sh\nexec /usr/bin/" + tool + " \"$@\"\n"
		ts.Check(os.WriteFile(filepath.Join(dir, "bin", tool), []byte(wrapper), 0o755))
	}
	ts.Check(os.WriteFile(filepath.Join(dir, "bin", "rocminfo"), []byte(ts.ReadFile(args[1])), 0o755))
}
