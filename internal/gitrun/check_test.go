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

// refNameSeeds are revisions mlxbuild's users give (ids, branches, tags)
// and the malformed ones git refuses; TestCheckRevAgreesWithGit and
// FuzzCheckRev compare CheckRev with git check-ref-format on them.
var refNameSeeds = []string{
	"81ba1c6a1b2c3d4e5f60718293a4b5c6d7e8f901", "main", "rocm-support", "v0.21.0", "origin/main",
	"feature/x.y", "a.lock", "x/.hidden", "a..b", "a/", "/a", "a//b", "a.", "@", "a@{1}", "HEAD~2",
	"a^{commit}", "a:b", "a b", "a\tb", "a?", "a*", "a[b", `a\b`, "refs/heads/ü", "-x", "--upload-pack=touch x",
	"a\x7f", ".a", "a.lock/b", "@x", "x@", "lock", ".lock",
}

// gitAccepts asks git 2.39 whether ref is a valid one-level-or-more ref name.
func gitAccepts(t testing.TB, ref string) bool {
	t.Helper()
	err := exec.Command("git", "check-ref-format", "--allow-onelevel", ref).Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return err == nil
}

func TestCheckRevAgreesWithGit(t *testing.T) {
	needGit(t)
	for _, ref := range refNameSeeds {
		if strings.HasPrefix(ref, "-") {
			if CheckRev(ref) == nil {
				t.Errorf("CheckRev(%q) accepted an option-like revision", ref)
			}
			continue
		}
		if got, want := CheckRev(ref) == nil, gitAccepts(t, ref); got != want {
			t.Errorf("CheckRev(%q) accepts = %v, git check-ref-format says %v (err %v)", ref, got, want, CheckRev(ref))
		}
	}
}

// FuzzCheckRev: CheckRev never accepts a revision git could read as an
// option or one holding a byte git cannot take from argv, and agrees with
// git check-ref-format on everything else.
func FuzzCheckRev(f *testing.F) {
	for _, s := range refNameSeeds {
		f.Add(s)
	}
	_, noGit := exec.LookPath("git")
	if noGit != nil && os.Getenv("CI") != "" {
		f.Fatal("git is not installed: CI must install it")
	}
	f.Fuzz(func(t *testing.T, ref string) {
		err := CheckRev(ref)
		if err == nil && (ref == "" || ref[0] == '-' || strings.ContainsAny(ref, "\x00\n")) {
			t.Fatalf("CheckRev(%q) accepted it", ref)
		}
		if err != nil && err.Error() == "" {
			t.Fatalf("CheckRev(%q): an empty error", ref)
		}
		if noGit != nil || ref == "" || ref[0] == '-' || strings.ContainsRune(ref, 0) {
			return
		}
		if got, want := err == nil, gitAccepts(t, ref); got != want {
			t.Fatalf("CheckRev(%q) accepts = %v, git check-ref-format says %v (err %v)", ref, got, want, err)
		}
	})
}

func TestCheckRepo(t *testing.T) {
	for _, ok := range []string{
		"https://github.com/ml-explore/mlx", "https://github.com/ml-explore/mlx.git", "ssh://git@github.com/ml-explore/mlx",
		"git@github.com:ml-explore/mlx.git", "git://example.org/mlx", "file:///srv/mlx", "/srv/mlx", "../mlx", "mlx",
		"ssh://[::1]:22/mlx", "HTTPS://example.org/mlx", "git+ssh://example.org/mlx", "dir/with:colon", "./a::b",
	} {
		if err := CheckRepo(ok); err != nil {
			t.Errorf("CheckRepo(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{
		"", "-u", "--upload-pack=touch x", "ext::sh -c touch% x", "fd::3", "testgit::x", "EXT::sh", "ftp://example.org/mlx",
		"ssh://-oProxyCommand=x/mlx", "ssh://user@-oProxyCommand=x/mlx", "-oProxyCommand=x:mlx", "user@-o:mlx",
		"https://example.org/mlx\nx", "/srv/ml\x7fx",
	} {
		if err := CheckRepo(bad); err == nil {
			t.Errorf("CheckRepo(%q) accepted it", bad)
		}
	}
}

// TestExtTransportRefusedWhateverTheUserConfigSays: a ~/.gitconfig that
// allows every protocol does not let an ext:: URL run its command.
func TestExtTransportRefusedWhateverTheUserConfigSays(t *testing.T) {
	needGit(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[protocol]\n\tallow = always\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	m := filepath.Join(t.TempDir(), "MARKER")
	url := "ext::sh -c touch% " + m
	// The user's git runs it: the configuration is what a careless user has.
	user := exec.Command("git", "ls-remote", "--", url)
	user.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	user.Run()
	if _, err := os.Stat(m); err != nil {
		t.Fatalf("the fixture is wrong: plain git with protocol.allow=always did not run ext:: (%v)", err)
	}
	os.Remove(m)
	_, err := Runner{}.Output(context.Background(), t.TempDir(), "ls-remote", "--", url)
	if _, serr := os.Stat(m); serr == nil {
		t.Fatal("Runner let an ext:: URL run its command")
	}
	if err == nil || !strings.Contains(err.Error(), "transport 'ext' not allowed") {
		t.Errorf("want git's refusal of the ext transport, got %v", err)
	}
}

// FuzzCheckRepo: what CheckRepo accepts is never an option, holds no
// control byte, is not git's <transport>:: form and names no other scheme
// than the allowed ones; its refusals say why.
func FuzzCheckRepo(f *testing.F) {
	for _, s := range []string{"https://github.com/ml-explore/mlx", "git@github.com:ml-explore/mlx.git", "../mlx",
		"ext::sh -c touch% x", "--upload-pack=x", "ssh://-oProxyCommand=x/y", "fd::3", "ftp://h/x", "file:///srv/mlx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, repo string) {
		err := CheckRepo(repo)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("CheckRepo(%q): an empty error", repo)
			}
			return
		}
		if repo == "" || repo[0] == '-' || strings.ContainsFunc(repo, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("CheckRepo accepted %q", repo)
		}
		if t2, _, ok := strings.Cut(repo, "::"); ok && isScheme(t2) {
			t.Fatalf("CheckRepo accepted the transport form %q", repo)
		}
		if s, _, ok := strings.Cut(repo, "://"); ok && isScheme(s) && !slices.Contains(urlSchemes, strings.ToLower(s)) {
			t.Fatalf("CheckRepo accepted the scheme of %q", repo)
		}
	})
}
