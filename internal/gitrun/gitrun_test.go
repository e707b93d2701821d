package gitrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("git is not installed; CI fails here")
		}
		t.Fatal("git is not installed: CI must install it")
	}
}

// TestOuterGitStateIgnored: a GIT_DIR, GIT_WORK_TREE and identity exported
// by an outer git (a hook, say) must not reach the commands, which work on
// the directory they are given and commit as mlxbuild.
func TestOuterGitStateIgnored(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	outer, repo := t.TempDir(), t.TempDir()
	var r Runner
	if _, err := r.Output(ctx, outer, "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_DIR", filepath.Join(outer, ".git"))
	t.Setenv("GIT_WORK_TREE", outer)
	t.Setenv("GIT_AUTHOR_NAME", "intruder")
	t.Setenv("GIT_COMMITTER_EMAIL", "intruder@example.com")
	if _, err := r.Output(ctx, repo, "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Output(ctx, repo, "commit", "--quiet", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(err)
	}
	who, err := r.Output(ctx, repo, "log", "-1", "--format=%an <%ae> / %cn <%ce>")
	if err != nil {
		t.Fatal(err)
	}
	if want := "mlxbuild <mlxbuild@localhost> / mlxbuild <mlxbuild@localhost>"; who != want {
		t.Errorf("commit identity %q, want %q", who, want)
	}
	top, err := r.Output(ctx, repo, "rev-parse", "--show-toplevel")
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := filepath.EvalSymlinks(repo); top != want {
		t.Errorf("git worked in %q, want %q", top, want)
	}
	if head, err := r.Output(ctx, outer, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		t.Errorf("the outer repository got a commit: %s", head)
	}
}

// TestExtraWins: Extra settings come after the fixed ones, so they win.
func TestExtraWins(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	repo := t.TempDir()
	r := Runner{Extra: []string{"GIT_AUTHOR_NAME=forksync", "GIT_CONFIG_NOSYSTEM=1"}}
	env := r.Env()
	if !slices.Contains(env, "GIT_CONFIG_NOSYSTEM=1") || env[len(env)-1] != "GIT_CONFIG_NOSYSTEM=1" {
		t.Errorf("Extra is not last in the environment: %q", env[len(env)-2:])
	}
	if _, err := r.Output(ctx, repo, "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Output(ctx, repo, "commit", "--quiet", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(err)
	}
	if who, err := r.Output(ctx, repo, "log", "-1", "--format=%an"); err != nil || who != "forksync" {
		t.Errorf("author %q (%v), want forksync", who, err)
	}
}

// TestOutputTrimsRunDoesNot: Output trims the trailing newline that Run
// keeps, and a failing command gives its error with the output.
func TestOutputTrimsRunDoesNot(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	var r Runner
	res, err := r.Run(ctx, "", "--version")
	if err != nil || !strings.HasSuffix(string(res.Stdout), "\n") {
		t.Fatalf("Run: %q, %v", res.Stdout, err)
	}
	out, err := r.Output(ctx, "", "--version")
	if err != nil || out != strings.TrimSpace(string(res.Stdout)) || !strings.HasPrefix(out, "git version ") {
		t.Errorf("Output: %q, %v", out, err)
	}
	if _, err := r.Output(ctx, t.TempDir(), "rev-parse", "HEAD"); err == nil {
		t.Error("rev-parse outside a repository succeeded")
	}
}
