package compilecache_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
)

// FuzzRedact builds a URL with a password and embeds it in surrounding
// text: the password must not survive Redact (unless the rest of the text
// holds it anyway), and redacting twice changes nothing.
func FuzzRedact(f *testing.F) {
	f.Add("redis", "ci", "s3cret", "cache.lan:6379", "dial ", " failed")
	f.Add("http", "", "p@ss/w|rd", "h", "", "/ccache|layout=bazel")
	f.Fuzz(func(t *testing.T, scheme, user, pass, host, before, after string) {
		u := url.URL{Scheme: "redis", User: url.UserPassword(user, pass), Host: host}
		if scheme == "http" {
			u.Scheme = "http"
		}
		s := before + u.String() + after
		got := compilecache.Redact(s)
		if compilecache.Redact(got) != got {
			t.Errorf("Redact is not idempotent on %q: %q", s, got)
		}
		enc := u.User.String()
		if len(pass) >= 4 && strings.Contains(got, enc) && !strings.Contains(before+host+after, enc) {
			t.Errorf("Redact(%q) = %q still holds the credentials", s, got)
		}
	})
}
