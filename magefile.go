//go:build mage

// Every target of package targets is imported as a parent repository
// would, over this repository's mlxbuild.yaml (the bundled example). Mage
// prints the package comment below in full under -l: keep it one line.

// mlxbuild's own magefile: the importable targets over the example, and CI.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/gotest"
	"github.com/mlxbuild/mlxbuild/internal/proc"

	//mage:import
	_ "github.com/mlxbuild/mlxbuild/targets"
)

// Test runs what CI runs: gofmt, go vet and every test. CI=true makes a
// test that lacks a tool fail instead of skip.
func Test() error {
	res, err := proc.Run(context.Background(), proc.Cmd{Path: "gofmt", Args: []string{"-l", "."}})
	if err != nil {
		return fmt.Errorf("gofmt: %w", err)
	}
	var bad []string
	for _, f := range strings.Fields(string(res.Stdout)) {
		if !strings.Contains(f, "testdata/") {
			bad = append(bad, f)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("gofmt would change: %s (run gofmt -w)", strings.Join(bad, " "))
	}
	if err := run("go", "vet", "./..."); err != nil {
		return err
	}
	// The spec generator and its stand-in for builtin_gen.go build only
	// with the specgen tag (go generate ./configs).
	if err := run("go", "vet", "-tags", "specgen", "./configs/...", "./internal/specgen"); err != nil {
		return err
	}
	// Metal's users are on macOS: the whole tool must build and vet there.
	if err := runEnv([]string{"GOOS=darwin"}, "go", "vet", "./..."); err != nil {
		return err
	}
	// GB10 and GH200 hosts are aarch64 Linux: the static binary that runs
	// there (docs/aarch64.md) must build and vet too, tests included.
	if err := runEnv([]string{"GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"}, "go", "vet", "./..."); err != nil {
		return err
	}
	// go test -json underneath: the run ends with the list of what failed
	// and the command that re-runs each.
	fmt.Fprintln(os.Stderr, "==> go test -count=1 -timeout 40m ./...")
	return gotest.Run(context.Background(), "", []string{"-count=1", "-timeout", "40m", "./..."}, os.Stdout, os.Stderr)
}

func run(name string, args ...string) error { return runEnv(nil, name, args...) }

func runEnv(env []string, name string, args ...string) error {
	fmt.Fprintf(os.Stderr, "==> %s%s %s\n", strings.Join(append(env, ""), " "), name, strings.Join(args, " "))
	_, err := proc.Run(context.Background(), proc.Cmd{Path: name, Args: args, Env: append(os.Environ(), env...), Stdout: os.Stdout, Stderr: os.Stderr})
	var exit *proc.ExitError
	if errors.As(err, &exit) {
		// Its output is on the screen already; a repeat of its first
		// 400 bytes would only hide where it ended.
		return fmt.Errorf("%s %s: %v (its output is above)", name, strings.Join(args, " "), exit.Err)
	}
	return err
}
