package compilecache_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// checkRemote runs Check and returns the remote's finding (the second).
func checkRemote(t *testing.T, cfg *compilecache.Config) compilecache.Finding {
	t.Helper()
	fs := cfg.Check(context.Background())
	if len(fs) < 2 {
		t.Fatalf("findings %v, want the tool's and the remote's", fs)
	}
	if !fs[0].OK || !strings.Contains(fs[0].What, cfg.Tool+" at /") {
		t.Errorf("tool finding %s", fs[0])
	}
	return fs[1]
}

func TestCheckRedis(t *testing.T) {
	testutil.NeedTools(t, "ccache")
	r := startRedis(t)
	f := checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: r.URL})
	if !f.OK || !strings.Contains(f.Detail, "PONG") {
		t.Errorf("live Redis: %s", f)
	}
	r.Stop()
	f = checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: r.URL})
	if f.OK || !strings.Contains(f.Detail, "cannot connect to Redis at 127.0.0.1:"+strconv.Itoa(r.Port)) {
		t.Errorf("stopped Redis: %s", f)
	}
}

// TestCheckRedisPassword runs a Redis that wants a password: without one
// doctor names the variable to set; with a wrong one it says so without
// showing it; with the right one it gets PONG.
func TestCheckRedisPassword(t *testing.T) {
	testutil.NeedTools(t, "ccache")
	r := startRedis(t, "--requirepass", "opensesame")
	f := checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: r.URL})
	if f.OK || !strings.Contains(f.Detail, "MLXBUILD_LAUNCHER_PASSWORD") {
		t.Errorf("no password: %s", f)
	}
	wrong := "redis://:hunter2@127.0.0.1:" + strconv.Itoa(r.Port)
	f = checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: wrong})
	if f.OK || strings.Contains(f.String(), "hunter2") || !strings.Contains(f.Detail, "refused the credentials") {
		t.Errorf("wrong password: %s", f)
	}
	cfg, err := compilecache.FromEnv(nil, envOf(map[string]string{"MLXBUILD_LAUNCHER": "ccache",
		"MLXBUILD_LAUNCHER_REMOTE": r.URL, "MLXBUILD_LAUNCHER_PASSWORD": "opensesame"}))
	if err != nil {
		t.Fatal(err)
	}
	f = checkRemote(t, cfg)
	if !f.OK || strings.Contains(f.String(), "opensesame") {
		t.Errorf("right password: %s", f)
	}
}

func TestCheckHTTP(t *testing.T) {
	testutil.NeedTools(t, "ccache")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ci" || p != "tok" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNotFound) // no object at the base URL
	}))
	defer srv.Close()
	f := checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: srv.URL + "/ccache"})
	if f.OK || !strings.Contains(f.Detail, "401") {
		t.Errorf("no credentials: %s", f)
	}
	authed := strings.Replace(srv.URL, "http://", "http://ci:tok@", 1) + "/ccache"
	f = checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: authed})
	if !f.OK || !strings.Contains(f.Detail, "404") || strings.Contains(f.String(), "tok") {
		t.Errorf("with credentials: %s", f)
	}
}

func TestCheckFileStore(t *testing.T) {
	testutil.NeedTools(t, "ccache")
	if f := checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: "file://" + t.TempDir()}); !f.OK {
		t.Errorf("writable dir: %s", f)
	}
	if f := checkRemote(t, &compilecache.Config{Tool: "ccache", Remote: "file:///nonexistent/mlxbuild"}); f.OK {
		t.Errorf("missing dir: %s", f)
	}
}

func TestCheckNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	fs := (&compilecache.Config{Tool: "sccache", From: "MLXBUILD_LAUNCHER"}).Check(context.Background())
	if len(fs) != 1 || fs[0].OK || !strings.Contains(fs[0].Detail, "apt-get install sccache") {
		t.Errorf("%v", fs)
	}
	if (*compilecache.Config)(nil).Check(context.Background()) != nil {
		t.Error("no launcher, yet findings")
	}
}

// TestCheckSccacheStore asks the installed sccache to start a server on a
// live Redis. Debian's 0.4.0-pre.6 is built without Redis: doctor must say
// so plainly; an sccache with Redis must pass.
func TestCheckSccacheStore(t *testing.T) {
	testutil.NeedTools(t, "sccache")
	r := startRedis(t)
	fs := (&compilecache.Config{Tool: "sccache", Remote: r.URL}).Check(context.Background())
	if len(fs) != 3 || !fs[1].OK {
		t.Fatalf("findings %v", fs)
	}
	if f := fs[2]; !f.OK && !strings.Contains(f.Detail, "built without support for that store") {
		t.Errorf("store probe: %s", f)
	}
	t.Logf("%s", fs[2])
}
