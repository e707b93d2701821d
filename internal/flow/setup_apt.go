package flow

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/ui"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// aptLogTail is how many of the log's last lines a failed install shows.
const aptLogTail = 15

// aptInstall runs apt-get update and apt-get install for pkgs with their
// output (about 950 lines of dpkg and debconf on a fresh machine) in a
// log file of its own under os.TempDir (mlxbuild-setup-*.log; TMPDIR
// moves it), which it keeps: one line names it while apt runs, and a
// failure names it again with its last lines.
func aptInstall(ctx context.Context, pr *ui.Printer, pkgs []string) error {
	log, err := os.CreateTemp("", "mlxbuild-setup-*.log")
	if err != nil {
		return fmt.Errorf("setup: a log for apt-get's output: %w (set TMPDIR to a writable directory)", err)
	}
	defer log.Close()
	pr.Step("installing %s with apt-get (its output: %s)", plural.Count(len(pkgs), "missing package"), log.Name())
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{
		{"update", "-qq"},
		append([]string{"install", "-y", "-qq", "--no-install-recommends"}, pkgs...),
	} {
		fmt.Fprintf(log, "$ apt-get %s\n", strings.Join(args, " "))
		_, err := proc.Run(ctx, proc.Cmd{Path: "apt-get", Args: args, Env: env, Stdout: log, Stderr: log})
		if err != nil {
			return aptFailed(args[0], err, log.Name())
		}
	}
	return nil
}

// aptFailed says which apt-get step failed, where its whole output is,
// and why: what apt printed on stderr (its "E:" lines), else the log's
// last lines. (The log has stdout and stderr from two pipes, so an error
// line need not come last in it.)
func aptFailed(step string, err error, logPath string) error {
	why := ""
	var exit *proc.ExitError
	if errors.As(err, &exit) {
		err = exit.Err // the output is in the log, not repeated here
		why = tailLines(string(exit.Result.Stderr), aptLogTail)
	}
	msg := fmt.Sprintf("apt-get %s failed (%v); its output is in %s", step, err, logPath)
	if why != "" {
		return errors.New(msg + "; it said:\n" + why)
	}
	if data, rerr := os.ReadFile(logPath); rerr == nil {
		if tail := tailLines(string(data), aptLogTail); tail != "" {
			msg += ", ending:\n" + tail
		}
	}
	return errors.New(msg)
}

// tailLines is the last n lines of text, each indented; "" for blank text.
func tailLines(text string, n int) string {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// missingPackages asks dpkg which of pkgs are not installed.
func missingPackages(ctx context.Context, pkgs []string) ([]string, error) {
	args := append([]string{"-W", "-f=${Package} ${db:Status-Abbrev}\n"}, pkgs...)
	res, _ := proc.Run(ctx, proc.Cmd{Path: "dpkg-query", Args: args})
	installed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(res.Stdout))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && strings.HasPrefix(f[1], "ii") {
			installed[strings.Split(f[0], ":")[0]] = true
		}
	}
	var missing []string
	for _, p := range pkgs {
		if !installed[p] {
			missing = append(missing, p)
		}
	}
	return missing, nil
}
