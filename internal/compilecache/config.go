package compilecache

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// The environment variables that override the project file's launcher.
const (
	// EnvTool names the tool (ccache, sccache), or "none" to build
	// without a launcher whatever the project file says.
	EnvTool = "MLXBUILD_LAUNCHER"
	// EnvRemote is the remote store's URL, or "none" for a local cache
	// only. Unlike the project file it may carry credentials
	// (redis://:secret@host:6379).
	EnvRemote = "MLXBUILD_LAUNCHER_REMOTE"
	// EnvUser and EnvPassword are added to a remote URL that has none, so
	// the project file can name the host and CI's secrets the password.
	EnvUser     = "MLXBUILD_LAUNCHER_USER"
	EnvPassword = "MLXBUILD_LAUNCHER_PASSWORD"
)

// Tools are the launchers mlxbuild knows.
var Tools = []string{"ccache", "sccache"}

// ErrNotInstalled is wrapped by Setup's error when the tool is not on PATH.
// The caller may warn and build without a launcher: a cache is an
// accelerator, never a reason for a build to fail.
var ErrNotInstalled = errors.New("compiler launcher not installed")

// Config is the launcher of one build. A nil *Config means no launcher.
type Config struct {
	Tool string // ccache or sccache
	// Remote is the shared store's URL; "" for a local cache only. It may
	// hold credentials from the environment: show it only through Redact.
	Remote string
	// From says where Tool came from, for messages: the project file's
	// position or the environment variable.
	From string
}

// FromEnv combines the project file's launcher (nil when it has none) with
// the environment's overrides. It returns nil when no launcher is wanted.
func FromEnv(project *configs.Launcher, env func(string) string) (*Config, error) {
	c := &Config{}
	if project != nil {
		c.Tool, c.Remote, c.From = project.Tool, project.Remote, project.Pos.String()
		if c.From == "" {
			c.From = "the project file's launcher"
		}
	}
	if v := strings.TrimSpace(env(EnvTool)); v != "" {
		c.Tool, c.From = v, EnvTool
	}
	switch strings.ToLower(c.Tool) {
	case "", "none", "off":
		return nil, nil
	case "ccache", "sccache":
		c.Tool = strings.ToLower(c.Tool)
	default:
		return nil, fail.Configf("%s: launcher %q is not one mlxbuild knows; use ccache, sccache or none", c.From, c.Tool)
	}
	remoteFrom := "launcher.remote"
	if v := strings.TrimSpace(env(EnvRemote)); v != "" {
		c.Remote, remoteFrom = v, EnvRemote
	}
	if strings.EqualFold(c.Remote, "none") {
		c.Remote = ""
	}
	if c.Remote == "" {
		return c, nil
	}
	base, attrs := splitAttrs(c.Remote)
	u, err := url.Parse(base)
	if err != nil || u.Host == "" && u.Scheme != "file" && u.Scheme != "redis+unix" {
		return nil, fail.Configf("%s=%s is not a URL; use redis://host:port or http://host/path", remoteFrom, Redact(c.Remote))
	}
	if err := checkScheme(c.Tool, u.Scheme); err != nil {
		return nil, fail.Configf("%s=%s: %v", remoteFrom, Redact(c.Remote), err)
	}
	if u.User == nil && env(EnvPassword) != "" {
		if user := env(EnvUser); user != "" {
			u.User = url.UserPassword(user, env(EnvPassword))
		} else {
			u.User = url.UserPassword("", env(EnvPassword))
		}
		c.Remote = u.String() + attrs
	}
	if attrs != "" && c.Tool != "ccache" {
		return nil, fail.Configf("%s=%s: |attributes are ccache's syntax; sccache takes a plain URL", remoteFrom, Redact(c.Remote))
	}
	return c, nil
}

// splitAttrs separates ccache's storage attributes from the URL:
// "redis://h:6379|read-only=true" is "redis://h:6379" and "|read-only=true".
func splitAttrs(remote string) (base, attrs string) {
	if i := strings.IndexByte(remote, '|'); i >= 0 {
		return remote[:i], remote[i:]
	}
	return remote, ""
}

// checkScheme refuses stores the tool cannot use.
func checkScheme(tool, scheme string) error {
	ok := map[string][]string{
		// ccache 4.7: file, http and redis storage backends.
		"ccache": {"redis", "redis+unix", "http", "file"},
		// sccache: Redis; WebDAV (an HTTP store) from sccache 0.4.0.
		"sccache": {"redis", "http", "https"},
	}[tool]
	for _, s := range ok {
		if s == scheme {
			return nil
		}
	}
	return fmt.Errorf("%s cannot use a %q store; use one of %s", tool, scheme, strings.Join(ok, ", "))
}

// lookPath finds the tool, wrapping ErrNotInstalled.
func (c *Config) lookPath() (string, error) {
	p, err := exec.LookPath(c.Tool)
	if err != nil {
		return "", fmt.Errorf("%w: %s (asked for by %s) is not on PATH; install it (Debian: apt-get install %s) or set %s=none", ErrNotInstalled, c.Tool, c.From, c.Tool, EnvTool)
	}
	return p, nil
}

// Redact returns s with the password (and user) of every URL in it
// replaced, so a remote can be logged: redis://:secret@h:6379 becomes
// redis://***@h:6379.
func Redact(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+3])
		rest := s[i+3:]
		end := strings.IndexAny(rest, "/ \t\n\"'|?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			b.WriteString("***")
			rest = rest[at:]
		}
		s = rest
	}
}
