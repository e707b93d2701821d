// Package gitrun runs git for mlxbuild's own repositories (the MLX mirror
// and checkouts, a fork's mirror) isolated from whatever git state the
// caller's environment carries: every GIT_* variable removed, prompts off, a
// fixed identity, the C locale, transports limited to AllowedProtocols, and
// a default time limit. CheckRev and CheckRepo say which revisions and
// repositories may reach git at all; callers put "--" (or --end-of-options
// where "--" means paths) before every positional argument.
package gitrun

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Timeout bounds one git command whose context has no deadline of its own,
// so an unreachable server cannot hang a build or a sync forever.
const Timeout = 15 * time.Minute

// Runner runs git with Env. Extra holds further KEY=VALUE settings that
// one user wants and another does not (forksync ignores the system
// configuration; the pristine source does not); they come last and win.
type Runner struct {
	Extra []string
}

// Env is the current environment without GIT_* variables (a GIT_DIR or
// GIT_WORK_TREE exported by a hook or an outer git would point every command
// at the wrong repository; a GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH or
// GIT_SSH at other programs), with prompts off, a fixed identity, only
// AllowedProtocols and r.Extra.
// It is read anew on every call, so a changed environment counts.
func (r Runner) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ASKPASS=",
		"SSH_ASKPASS=",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes",
		// Overrides protocol.allow in every git configuration: a
		// ~/.gitconfig allowing ext:: must not let a URL run a command.
		"GIT_ALLOW_PROTOCOL="+AllowedProtocols,
		"GIT_AUTHOR_NAME=mlxbuild", "GIT_AUTHOR_EMAIL=mlxbuild@localhost",
		"GIT_COMMITTER_NAME=mlxbuild", "GIT_COMMITTER_EMAIL=mlxbuild@localhost",
		"LC_ALL=C",
	)
	return append(env, r.Extra...)
}

// Run runs git with args in dir (a work tree or a bare repository; "" for
// the current directory), limited to Timeout when ctx has no deadline, and
// returns the untrimmed result: for binary output and for exit codes that
// are answers (git merge-file).
func (r Runner) Run(ctx context.Context, dir string, args ...string) (proc.Result, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, Timeout)
		defer cancel()
	}
	return proc.Run(ctx, proc.Cmd{Path: "git", Args: args, Dir: dir, Env: r.Env()})
}

// Output is Run's standard output with surrounding white space trimmed.
func (r Runner) Output(ctx context.Context, dir string, args ...string) (string, error) {
	res, err := r.Run(ctx, dir, args...)
	return strings.TrimSpace(string(res.Stdout)), err
}
