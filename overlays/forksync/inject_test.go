package forksync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// The injection tests plant a value that git would run as a command
// (--upload-pack=touch MARKER when it is read as an option; an ext:: URL,
// which runs its command as the transport) in each place a revision or a
// repository reaches git from, and assert that the command never ran and
// that the error names the place, with exit status 2.

// marker is a path the injected command would create.
func marker(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "MARKER")
}

// uploadPack is an option that makes git fetch or clone run a command. Git
// runs it through the shell: "#" comments out the arguments git appends,
// and the "@" makes it look like an scp-style address to code that tells
// URLs from local paths (a path would be made absolute, defusing it).
func uploadPack(m string) string { return "--upload-pack=touch " + m + " #@" }

// extURL is an ext:: URL whose transport command creates m. The "@" makes
// it look like an scp-style address to code that tells URLs from paths.
func extURL(m string) string { return "ext::sh -c touch% " + m + " x@y" }

// allowEveryProtocol gives git a user configuration that allows every
// transport, ext:: included, as a careless ~/.gitconfig might: mlxbuild must
// refuse ext:: even so.
func allowEveryProtocol(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	testutil.WriteFile(t, filepath.Join(home, ".gitconfig"), "[protocol]\n\tallow = always\n")
	t.Setenv("HOME", home)
}

// refused checks that the injected command did not run and that err is a
// clear refusal with exit status 2 mentioning every string in want.
func refused(t *testing.T, err error, m string, want ...string) {
	t.Helper()
	if _, serr := os.Stat(m); serr == nil {
		t.Fatalf("the injected command ran: %s exists (err: %v)", m, err)
	}
	if err == nil {
		t.Fatal("the injected value was accepted")
	}
	t.Logf("refused: %v", err)
	if fail.ExitCode(err) != 2 {
		t.Errorf("want exit status 2 (bad configuration or usage), got %T: %v", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not mention %q:\n%v", w, err)
		}
	}
}

// setUpstreamLine rewrites UPSTREAM's `key:` line to value.
func (f *syncFixture) setUpstreamLine(t *testing.T, key, value string) {
	t.Helper()
	var out []string
	found := false
	for _, l := range strings.Split(f.upText, "\n") {
		if strings.HasPrefix(l, key+":") {
			l, found = key+": "+value, true
		}
		out = append(out, l)
	}
	if !found {
		t.Fatalf("UPSTREAM has no %s line", key)
	}
	testutil.WriteFile(t, filepath.Join(f.overlay, "UPSTREAM"), strings.Join(out, "\n"))
}

func TestSyncRefusesOptionLikeUpstreamRecords(t *testing.T) {
	for _, c := range []struct{ key, line string }{
		{"commit", "UPSTREAM:4:9"},
		{"fork_upstream_merge_base", "UPSTREAM:5:27"},
	} {
		t.Run(c.key, func(t *testing.T) {
			f := newSyncFixture(t)
			m := marker(t)
			f.setUpstreamLine(t, c.key, uploadPack(m))
			o := f.forkOpts
			o.Commit = "rocm-support"
			_, err := Sync(context.Background(), o)
			refused(t, err, m, c.line, c.key)
		})
	}
}

func TestSyncRefusesAnOptionLikeCommit(t *testing.T) {
	f := newSyncFixture(t)
	m := marker(t)
	o := f.forkOpts
	o.Commit = uploadPack(m)
	_, err := Sync(context.Background(), o)
	refused(t, err, m, "--upload-pack")
	sameSnap(t, snap(t, f.overlay), f.before)
}

func TestDriftRefusesOptionLikeRevisions(t *testing.T) {
	t.Run("retargeted_to_mlx_pin", func(t *testing.T) {
		f := newSyncFixture(t)
		m := marker(t)
		f.setUpstreamLine(t, "retargeted_to_mlx_pin", uploadPack(m))
		refused(t, drift(t, f, f.b0), m, "UPSTREAM:6:24", "retargeted_to_mlx_pin")
	})
	t.Run("candidate", func(t *testing.T) {
		f := newSyncFixture(t)
		m := marker(t)
		refused(t, drift(t, f, uploadPack(m)), m, "candidate", "--upload-pack")
	})
}

// drift runs overlay:drift's steps for the fixture's rocm overlay.
func drift(t *testing.T, f *syncFixture, candidate string) error {
	t.Helper()
	cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := DriftOptionsFor(cfg, "rocm", candidate)
	if err != nil {
		return err
	}
	_, err = Drift(context.Background(), o)
	return err
}

// TestOpenRepoRefusesOptionLikeRevisions: every revision the mirror is
// asked for (overlay:apiDrift's candidate among them) is checked where git
// is called, not only where the value is read.
func TestOpenRepoRefusesOptionLikeRevisions(t *testing.T) {
	f := newSyncFixture(t)
	m := marker(t)
	_, err := openRepo(context.Background(), f.cache, f.mlx.dir, f.b0, uploadPack(m))
	refused(t, err, m, "--upload-pack")
}

func TestSyncRefusesAnExtURL(t *testing.T) {
	f := newSyncFixture(t)
	allowEveryProtocol(t)
	m := marker(t)
	o := f.forkOpts
	o.Fork.Git = extURL(m)
	o.Commit = "rocm-support"
	_, err := Sync(context.Background(), o)
	refused(t, err, m, "ext::")
}

// TestProjectGitValuesAreCheckedAtLoad: source.git and fork.git that git
// would run as a command are configuration errors with their position;
// the sync they would reach (it fetches MLX's HEAD from source.git) never
// runs.
func TestProjectGitValuesAreCheckedAtLoad(t *testing.T) {
	for _, c := range []struct {
		name, key, pos string
		value          func(m string) string
	}{
		{"option-like source.git", "  git: ../mlx\n", "mlxbuild.yaml:2:8", uploadPack},
		{"ext:: source.git", "  git: ../mlx\n", "mlxbuild.yaml:2:8", extURL},
		{"option-like fork.git", "      git: ../fork\n", "mlxbuild.yaml:9:12", uploadPack},
		{"ext:: fork.git", "      git: ../fork\n", "mlxbuild.yaml:9:12", extURL},
		{"option-like fork.branch", "      branch: rocm-support\n", "mlxbuild.yaml:10:15", uploadPack},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newSyncFixture(t)
			allowEveryProtocol(t)
			m := marker(t)
			text := readFile(t, f.project)
			if !strings.Contains(text, c.key) {
				t.Fatalf("the fixture's project file has no %q", c.key)
			}
			bad := strings.TrimSuffix(c.key, "\n")
			bad = bad[:strings.Index(bad, ":")+2] + "'" + c.value(m) + "'\n"
			testutil.WriteFile(t, f.project, strings.Replace(text, c.key, bad, 1))
			cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
			if err == nil {
				// Accepted at load: see whether the sync runs it.
				_, so, serr := SyncOptionsFor(cfg, "rocm", "rocm-support")
				if serr == nil {
					_, serr = Sync(context.Background(), so)
				}
				if _, statErr := os.Stat(m); statErr == nil {
					t.Fatalf("the injected command ran: %s exists (sync: %v)", m, serr)
				}
				t.Fatalf("%s loaded without error", f.project)
			}
			refused(t, err, m, c.pos)
		})
	}
}
