package gotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Run runs `go test -json args...` in dir, prints plain go test's output
// to stdout as it comes (go test's own errors go to stderr), and when
// something failed ends with Summary and returns a one-line error that
// points at it: the last thing on the screen is what failed and how to
// run it again, not a cut-off repeat of the first lines.
func Run(ctx context.Context, dir string, args []string, stdout, stderr io.Writer) error {
	module := modulePath(ctx, dir)
	s := &Stream{Out: stdout}
	_, err := proc.Run(ctx, proc.Cmd{Path: "go", Args: append([]string{"test", "-json"}, args...), Dir: dir, Stdout: s, Stderr: stderr})
	s.Close()
	failures := s.Failures()
	if len(failures) > 0 {
		io.WriteString(stdout, Summary(failures, s.FailedPackages(), module))
		return fmt.Errorf("go test: %s (listed above)", headline(failures, s.FailedPackages()))
	}
	var exit *proc.ExitError
	if errors.As(err, &exit) {
		// The output is above already: say only that it failed.
		return fmt.Errorf("go test %s: %v (its output is above)", strings.Join(args, " "), exit.Err)
	}
	return err
}

// modulePath is the main module's path in dir, or "" when go cannot say
// (the summary then names packages by import path).
func modulePath(ctx context.Context, dir string) string {
	res, err := proc.Run(ctx, proc.Cmd{Path: "go", Args: []string{"list", "-m"}, Dir: dir})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(res.Stdout))
}
