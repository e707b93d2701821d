package compilecache_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestFromEnv(t *testing.T) {
	proj := &configs.Launcher{Pos: configs.Pos{File: "mlxbuild.yaml", Line: 7, Col: 3}, Tool: "ccache", Remote: "redis://cache.lan:6379"}
	cases := []struct {
		name    string
		project *configs.Launcher
		env     map[string]string
		want    *compilecache.Config // nil: no launcher
		err     string
	}{
		{name: "none at all"},
		{name: "project file", project: proj, want: &compilecache.Config{Tool: "ccache", Remote: "redis://cache.lan:6379", From: "mlxbuild.yaml:7:3"}},
		{name: "env turns it off", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER": "none"}},
		{name: "env picks the tool", env: map[string]string{"MLXBUILD_LAUNCHER": "sccache"}, want: &compilecache.Config{Tool: "sccache", From: "MLXBUILD_LAUNCHER"}},
		{name: "env remote with credentials", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER_REMOTE": "redis://:s3cret@10.0.0.5:6380"},
			want: &compilecache.Config{Tool: "ccache", Remote: "redis://:s3cret@10.0.0.5:6380", From: "mlxbuild.yaml:7:3"}},
		{name: "password from env", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER_PASSWORD": "pw"},
			want: &compilecache.Config{Tool: "ccache", Remote: "redis://:pw@cache.lan:6379", From: "mlxbuild.yaml:7:3"}},
		{name: "user and password from env", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER_USER": "ci", "MLXBUILD_LAUNCHER_PASSWORD": "pw"},
			want: &compilecache.Config{Tool: "ccache", Remote: "redis://ci:pw@cache.lan:6379", From: "mlxbuild.yaml:7:3"}},
		{name: "ccache attributes kept", project: &configs.Launcher{Tool: "ccache", Remote: "redis://cache.lan:6379|read-only=true|connect-timeout=200"},
			env:  map[string]string{"MLXBUILD_LAUNCHER_PASSWORD": "pw"},
			want: &compilecache.Config{Tool: "ccache", Remote: "redis://:pw@cache.lan:6379|read-only=true|connect-timeout=200", From: "the project file's launcher"}},
		{name: "attributes are ccache's", env: map[string]string{"MLXBUILD_LAUNCHER": "sccache", "MLXBUILD_LAUNCHER_REMOTE": "redis://h:1|read-only=true"}, err: "attributes are ccache's syntax"},
		{name: "remote none", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER_REMOTE": "none"},
			want: &compilecache.Config{Tool: "ccache", From: "mlxbuild.yaml:7:3"}},
		{name: "unknown tool", env: map[string]string{"MLXBUILD_LAUNCHER": "distcc"}, err: `MLXBUILD_LAUNCHER: launcher "distcc" is not one mlxbuild knows`},
		{name: "not a URL", project: proj, env: map[string]string{"MLXBUILD_LAUNCHER_REMOTE": "cache.lan:6379"}, err: "MLXBUILD_LAUNCHER_REMOTE=cache.lan:6379 is not a URL"},
		{name: "scheme the tool lacks", env: map[string]string{"MLXBUILD_LAUNCHER": "sccache", "MLXBUILD_LAUNCHER_REMOTE": "file:///srv/cache"}, err: `sccache cannot use a "file" store`},
		{name: "error redacts", env: map[string]string{"MLXBUILD_LAUNCHER": "ccache", "MLXBUILD_LAUNCHER_REMOTE": "ftp://u:hunter2@h/x"}, err: "ftp://***@h/x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := compilecache.FromEnv(c.project, envOf(c.env))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want it to contain %q", err, c.err)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("error leaks the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"redis://:pw@h:6379":                          "redis://***@h:6379",
		"redis://user:p@ss@h:6379/0":                  "redis://***@h:6379/0",
		"http://u:p@cache/ccache|layout=bazel":        "http://***@cache/ccache|layout=bazel",
		"redis://h:6379":                              "redis://h:6379",
		"dial redis://a:b@x:1 and http://c:d@y/ fail": "dial redis://***@x:1 and http://***@y/ fail",
		"no url here":                                 "no url here",
	} {
		if got := compilecache.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSetupCcache(t *testing.T) {
	testutil.NeedTools(t, "ccache")
	cfg := &compilecache.Config{Tool: "ccache", Remote: "redis://:pw@127.0.0.1:6379"}
	defs, env, err := cfg.Setup("/c/rocm", "/c")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range compilecache.Languages {
		p := defs["CMAKE_"+l+"_COMPILER_LAUNCHER"]
		if !filepath.IsAbs(p) || filepath.Base(p) != "ccache" {
			t.Errorf("%s launcher %q, want ccache's absolute path", l, p)
		}
	}
	for _, kv := range []string{"CCACHE_DIR=/c/rocm/ccache", "CCACHE_BASEDIR=/c", "CCACHE_NOHASHDIR=1",
		"CCACHE_COMPILERCHECK=content", "CCACHE_REMOTE_STORAGE=redis://:pw@127.0.0.1:6379"} {
		if !slices.Contains(env, kv) {
			t.Errorf("env %v lacks %s", env, kv)
		}
	}
	// The defines reach logs, the marker and CMakeCache.txt: no remote there.
	for k, v := range defs {
		if strings.Contains(v, "pw") || strings.Contains(v, "redis") {
			t.Errorf("define %s=%s carries the remote", k, v)
		}
	}
}

func TestSetupSccache(t *testing.T) {
	testutil.NeedTools(t, "sccache")
	cfg := &compilecache.Config{Tool: "sccache", Remote: "redis://127.0.0.1:6379"}
	_, env, err := cfg.Setup("/c/rocm", "/c")
	if err != nil {
		t.Fatal(err)
	}
	_, other, _ := cfg.Setup("/d/rocm", "/d")
	if !slices.Contains(env, "SCCACHE_DIR=/c/rocm/sccache") || !slices.Contains(env, "SCCACHE_REDIS=redis://127.0.0.1:6379") ||
		!slices.Contains(env, "SCCACHE_BASEDIRS=/c") {
		t.Errorf("env %v", env)
	}
	port := func(env []string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "SCCACHE_SERVER_PORT="); ok {
				return v
			}
		}
		return ""
	}
	if port(env) == "" || port(env) == port(other) {
		t.Errorf("two caches share an sccache server port: %q %q", port(env), port(other))
	}
}

// TestSetupOff: with no launcher, the defines clear any launcher a previous
// configure left in CMakeCache.txt; custom commands keep their launcher
// (for the job count), with no cache.
func TestSetupOff(t *testing.T) {
	var cfg *compilecache.Config
	defs, env, err := cfg.Setup("/c/rocm", "/c")
	if err != nil || env != nil || len(defs) != len(compilecache.Languages)+3 {
		t.Fatalf("%v %v %v", defs, env, err)
	}
	for k, v := range defs {
		switch {
		case k == compilecache.MLXOwnLauncher:
			if v != "OFF" {
				t.Errorf("%s=%q, want OFF", k, v)
			}
		case k == "MLXBUILD_LAUNCH_CUSTOM":
			if v != "/c/rocm/mlxbuild-launch" {
				t.Errorf("%s=%q, want the backend's launcher", k, v)
			}
		case v != "" || !strings.HasSuffix(k, "_COMPILER_LAUNCHER") && k != "MLXBUILD_LAUNCH_CACHE":
			t.Errorf("%s=%q", k, v)
		}
	}
}

func TestSetupNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	cfg := &compilecache.Config{Tool: "ccache", From: "mlxbuild.yaml:4:9"}
	_, _, err := cfg.Setup("/c/rocm", "/c")
	if err == nil || !strings.Contains(err.Error(), "mlxbuild.yaml:4:9") || !strings.Contains(err.Error(), "MLXBUILD_LAUNCHER=none") {
		t.Fatalf("error %v", err)
	}
	if !errorsIs(err, compilecache.ErrNotInstalled) {
		t.Errorf("%v does not wrap ErrNotInstalled", err)
	}
}

// TestSetupKeepsHIPFromSccache: every setup names the custom-command
// launcher; ccache gets the HIP compiles of custom commands and HIP
// targets; sccache, which caches no HIP compile, gets neither, and HIPNote
// says so (once, from configure); no launcher has no note.
func TestSetupKeepsHIPFromSccache(t *testing.T) {
	testutil.NeedTools(t, "ccache", "sccache")
	dir := t.TempDir()
	launcher := filepath.Join(dir, "mlxbuild-launch")
	for _, c := range []struct {
		cfg       *compilecache.Config
		hip, cxx  string // the tool's name in the HIP and CXX launchers, "" for none
		launchHIP string // MLXBUILD_LAUNCH_CACHE's tool
		note      bool
	}{
		{cfg: nil},
		{cfg: &compilecache.Config{Tool: "ccache"}, hip: "ccache", cxx: "ccache", launchHIP: "ccache"},
		{cfg: &compilecache.Config{Tool: "sccache", From: "mlxbuild.yaml:9:3"}, cxx: "sccache", note: true},
	} {
		defs, _, err := c.cfg.Setup(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if defs["MLXBUILD_LAUNCH_CUSTOM"] != launcher {
			t.Errorf("%+v: MLXBUILD_LAUNCH_CUSTOM=%q, want %s", c.cfg, defs["MLXBUILD_LAUNCH_CUSTOM"], launcher)
		}
		got := []string{defs["CMAKE_HIP_COMPILER_LAUNCHER"], defs["CMAKE_CXX_COMPILER_LAUNCHER"], defs["MLXBUILD_LAUNCH_CACHE"]}
		for i, want := range []string{c.hip, c.cxx, c.launchHIP} {
			if (want == "") != (got[i] == "") || want != "" && filepath.Base(got[i]) != want {
				t.Errorf("%+v: HIP, CXX and custom-command launchers %q, want tools %q", c.cfg, got, []string{c.hip, c.cxx, c.launchHIP})
				break
			}
		}
		if note := c.cfg.HIPNote(); c.note != (note != "") || c.note && !strings.Contains(note, "sccache (mlxbuild.yaml:9:3)") {
			t.Errorf("%+v: HIPNote %q", c.cfg, note)
		}
	}
}
