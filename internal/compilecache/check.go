package compilecache

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Finding is one line of doctor's launcher section.
type Finding struct {
	OK     bool
	What   string // what was checked, credentials redacted
	Detail string // the version or answer when OK; what is wrong and what to do when not
}

func (f Finding) String() string {
	mark := "ok"
	if !f.OK {
		mark = "FAIL"
	}
	return fmt.Sprintf("%s: %s: %s", mark, f.What, f.Detail)
}

// CheckTimeout bounds each of Check's probes.
var CheckTimeout = 3 * time.Second

var versionRe = lazyregexp.New(`\b(\d+\.\d+(\.\d+)?(-[0-9A-Za-z.]+)?)`)

// Check reports whether the tool is installed (and its version) and whether
// the remote store answers: a RESP PING for Redis, a HEAD request for HTTP,
// a writable directory for file://. A nil *Config has nothing to check.
func (c *Config) Check(ctx context.Context) []Finding {
	if c == nil {
		return nil
	}
	var out []Finding
	tool, err := c.lookPath()
	var ver *version.Version
	if err != nil {
		out = append(out, Finding{What: c.Tool, Detail: err.Error()})
	} else {
		vctx, cancel := context.WithTimeout(ctx, CheckTimeout)
		res, err := proc.Run(vctx, proc.Cmd{Path: tool, Args: []string{"--version"}})
		cancel()
		first, _, _ := strings.Cut(strings.TrimSpace(string(res.Stdout)), "\n")
		switch {
		case err != nil:
			out = append(out, Finding{What: c.Tool + " at " + tool, Detail: fmt.Sprintf("%s --version failed: %v; reinstall %s", tool, err, c.Tool)})
		default:
			if m := versionRe.FindStringSubmatch(first); m != nil {
				ver, _ = version.NewVersion(m[1])
			}
			out = append(out, c.versionFinding(tool, first, ver))
		}
	}
	if c.Remote != "" {
		out = append(out, c.checkRemote(ctx, ver))
		if c.Tool == "sccache" && err == nil {
			out = append(out, c.probeSccacheStore(ctx, tool))
		}
	}
	return out
}

// probeSccacheStore starts (and stops) an sccache server on the remote in a
// scratch directory: builds without the store's feature (Debian's 0.4.0-pre
// has no Redis) only say so when their server starts.
func (c *Config) probeSccacheStore(ctx context.Context, tool string) Finding {
	what := "sccache server with " + Redact(c.Remote)
	dir, err := os.MkdirTemp("", "mlxbuild-sccache-check-")
	if err != nil {
		return Finding{What: what, Detail: err.Error()}
	}
	defer os.RemoveAll(dir)
	env, err := c.sccacheEnv(dir)
	if err != nil {
		return Finding{What: what, Detail: err.Error()}
	}
	env = append(os.Environ(), env...)
	ctx, cancel := context.WithTimeout(ctx, 3*CheckTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: tool, Args: []string{"--start-server"}, Env: env})
	if err != nil {
		msg := strings.TrimSpace(string(res.Stderr) + string(res.Stdout))
		if strings.Contains(msg, "cache type is not enabled") {
			return Finding{What: what, Detail: "this sccache was built without support for that store (\"cache type is not enabled\"); use ccache (4.4+ has Redis and HTTP stores) or an sccache built with the store's feature"}
		}
		return Finding{What: what, Detail: Redact(err.Error())}
	}
	proc.Run(ctx, proc.Cmd{Path: tool, Args: []string{"--stop-server"}, Env: env})
	return Finding{OK: true, What: what, Detail: "the server starts with this store"}
}

// versionFinding says whether the installed version can do what is asked.
func (c *Config) versionFinding(tool, line string, v *version.Version) Finding {
	f := Finding{OK: true, What: c.Tool + " at " + tool, Detail: line}
	if v == nil {
		return f
	}
	switch {
	case c.Tool == "ccache" && v.LessThan(version.Must(version.NewVersion("4.4"))) && c.Remote != "":
		f.OK, f.Detail = false, line+": remote storage needs ccache 4.4 or newer; upgrade ccache or unset the remote"
	case c.Tool == "sccache" && v.LessThan(version.Must(version.NewVersion("0.4.0"))) && strings.HasPrefix(c.Remote, "http"):
		f.OK, f.Detail = false, line+": an HTTP (WebDAV) store needs sccache 0.4.0 or newer; upgrade sccache, use redis:// or use ccache"
	}
	return f
}

func (c *Config) checkRemote(ctx context.Context, v *version.Version) Finding {
	what := "remote " + Redact(c.Remote)
	base, _ := splitAttrs(c.Remote)
	u, err := url.Parse(base)
	if err != nil {
		return Finding{What: what, Detail: "not a URL: " + Redact(err.Error())}
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	var detail string
	switch u.Scheme {
	case "redis":
		host := u.Host
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), "6379")
		}
		detail, err = pingRedis(ctx, "tcp", host, u.User)
	case "redis+unix":
		detail, err = pingRedis(ctx, "unix", u.Path, u.User)
	case "http", "https":
		detail, err = headHTTP(ctx, u)
	case "file":
		detail, err = writableDir(u.Path)
	default:
		err = fmt.Errorf("scheme %q is not one mlxbuild can check", u.Scheme)
	}
	if err != nil {
		return Finding{What: what, Detail: Redact(err.Error())}
	}
	return Finding{OK: true, What: what, Detail: detail}
}

// pingRedis sends AUTH (when the URL has a password) and PING in RESP and
// expects +PONG.
func pingRedis(ctx context.Context, network, addr string, user *url.Userinfo) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return "", fmt.Errorf("cannot connect to Redis at %s: %v; start it, or check the host, port and firewall", addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	r := bufio.NewReader(conn)
	if pw, ok := user.Password(); ok {
		args := []string{"AUTH", pw}
		if name := user.Username(); name != "" {
			args = []string{"AUTH", name, pw}
		}
		if reply, err := redisCommand(conn, r, args...); err != nil {
			return "", err
		} else if !strings.HasPrefix(reply, "+OK") {
			//lint:ignore ST1005 "Redis" is the server's name, and the line is printed as users see it today.
			return "", fmt.Errorf("Redis at %s refused the credentials (%s); check %s", addr, reply, EnvPassword)
		}
	}
	reply, err := redisCommand(conn, r, "PING")
	if err != nil {
		return "", err
	}
	switch {
	case strings.HasPrefix(reply, "+PONG"):
		return "Redis at " + addr + " answered PONG", nil
	case strings.Contains(reply, "NOAUTH"):
		//lint:ignore ST1005 "Redis" is the server's name, and the line is printed as users see it today.
		return "", fmt.Errorf("Redis at %s needs a password: set %s (and %s for an ACL user)", addr, EnvPassword, EnvUser)
	default:
		//lint:ignore ST1005 "Redis" is the server's name, and the line is printed as users see it today.
		return "", fmt.Errorf("Redis at %s answered %q to PING; is it a Redis server?", addr, reply)
	}
}

func redisCommand(conn net.Conn, r *bufio.Reader, args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := conn.Write([]byte(b.String())); err != nil {
		return "", fmt.Errorf("writing to Redis at %s: %v", conn.RemoteAddr(), err)
	}
	line, err := r.ReadString('\n')
	if err != nil {
		//lint:ignore ST1005 "Redis" is the server's name, and the line is printed as users see it today.
		return "", fmt.Errorf("Redis at %s did not answer %s: %v", conn.RemoteAddr(), args[0], err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// headHTTP sends a HEAD to the store's base URL. Any answer but 401/403
// shows a server is there (ccache's and WebDAV stores answer 404 or 405 for
// a path that is not an object).
func headHTTP(ctx context.Context, u *url.URL) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("no answer from the HTTP store: %v; check the URL and that the server runs", err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return "", fmt.Errorf("the HTTP store answered %s; put the credentials in %s (user:password in the URL) or %s", resp.Status, EnvRemote, EnvPassword)
	}
	return "HTTP store answered " + resp.Status, nil
}

func writableDir(dir string) (string, error) {
	f, err := os.CreateTemp(dir, ".mlxbuild-check-*")
	if err != nil {
		return "", fmt.Errorf("the file store %s is not a writable directory: %v; create it or fix the path", dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return dir + " is writable", nil
}
