package gitrun

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// AllowedProtocols are the transports git may use for mlxbuild (the value
// of GIT_ALLOW_PROTOCOL). ext:: and fd:: run commands or read descriptors of
// the caller's choosing and are never allowed, whatever the user's git
// configuration says.
const AllowedProtocols = "file:git:http:https:ssh"

// urlSchemes are the scheme:// forms of AllowedProtocols (git+ssh and
// ssh+git are git's other names for ssh).
var urlSchemes = []string{"file", "git", "http", "https", "ssh", "git+ssh", "ssh+git"}

// CheckRev reports why rev cannot be handed to git as a revision: it must be
// a full commit id or a ref name that git check-ref-format --allow-onelevel
// accepts and that does not start with "-" (git would read it as an option,
// and `git fetch <remote> --upload-pack=CMD` runs CMD). Revision expressions
// (HEAD~2, a^{tree}, @{1}) are refused too: records and options name commits.
func CheckRev(rev string) error {
	switch {
	case rev == "":
		return errors.New("is empty")
	case rev[0] == '-':
		return errors.New("starts with '-', so git would read it as an option")
	}
	return checkRefFormat(rev)
}

// checkRefFormat is git check-ref-format's rule set (git 2.39,
// --allow-onelevel, no --refspec-pattern).
func checkRefFormat(ref string) error {
	if ref == "@" {
		return errors.New("is the single character '@'")
	}
	if strings.HasPrefix(ref, "/") || strings.HasSuffix(ref, "/") || strings.Contains(ref, "//") {
		return errors.New("has an empty path component (a leading, trailing or double '/')")
	}
	if strings.HasSuffix(ref, ".") {
		return errors.New("ends with '.'")
	}
	for _, bad := range []string{"..", "@{"} {
		if strings.Contains(ref, bad) {
			return fmt.Errorf("contains %q", bad)
		}
	}
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return fmt.Errorf("contains the control character %q", c)
		case strings.IndexByte(" ~^:?*[\\", c) >= 0:
			return fmt.Errorf("contains %q, which a ref name cannot hold", c)
		}
	}
	for _, comp := range strings.Split(ref, "/") {
		if strings.HasPrefix(comp, ".") {
			return fmt.Errorf("has a path component %q that starts with '.'", comp)
		}
		if strings.HasSuffix(comp, ".lock") {
			return fmt.Errorf("has a path component %q that ends with .lock", comp)
		}
	}
	return nil
}

// CheckRepo reports why repo cannot be handed to git as a repository to
// clone or fetch: it is empty, starts with "-" (an option), holds a control
// character, uses the <transport>::<address> form (ext:: runs a command), a
// scheme other than AllowedProtocols', or names a host that starts with "-"
// (ssh would read it as an option).
func CheckRepo(repo string) error {
	if repo == "" {
		return errors.New("is empty")
	}
	if repo[0] == '-' {
		return errors.New("starts with '-', so git would read it as an option")
	}
	for i := 0; i < len(repo); i++ {
		if c := repo[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("contains the control character %q", c)
		}
	}
	if t, ok := transportPrefix(repo); ok {
		return fmt.Errorf("uses git's %s:: transport form, which runs a program of its own (ext:: any command)", t)
	}
	if scheme, rest, ok := strings.Cut(repo, "://"); ok && isScheme(scheme) {
		if !slices.Contains(urlSchemes, strings.ToLower(scheme)) {
			return fmt.Errorf("uses the protocol %s, which mlxbuild does not let git use", scheme)
		}
		host, _, _ := strings.Cut(rest, "/")
		if _, h, ok := strings.Cut(host, "@"); ok {
			host = h
		}
		if strings.HasPrefix(host, "-") {
			return errors.New("names a host that starts with '-'")
		}
		return nil
	}
	// scp-like [user@]host:path: a colon before any slash.
	if i := strings.IndexByte(repo, ':'); i > 0 && !strings.Contains(repo[:i], "/") {
		host := repo[:i]
		if _, h, ok := strings.Cut(host, "@"); ok {
			host = h
		}
		if strings.HasPrefix(host, "-") {
			return errors.New("names a host that starts with '-'")
		}
	}
	return nil
}

// transportPrefix reports git's <transport>::<address> form: a scheme-like
// word followed by "::" (git's transport_get treats it as a remote helper).
func transportPrefix(s string) (string, bool) {
	t, _, ok := strings.Cut(s, "::")
	if !ok || !isScheme(t) {
		return "", false
	}
	return t, true
}

// isScheme reports whether s is an RFC 3986 scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}
