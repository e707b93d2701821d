package configs

import (
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestCheckOnly: MLXBUILD_CHECK_ONLY=1/true and DOCS_RS turn building off,
// 0/false keeps the build even on docs.rs, and any other value is a usage
// error (exit 2) naming the variable and the value.
func TestCheckOnly(t *testing.T) {
	for _, c := range []struct {
		check, docs string
		on          bool
		why         string
	}{
		{"", "", false, ""},
		{"1", "", true, "MLXBUILD_CHECK_ONLY=1"},
		{"true", "", true, "MLXBUILD_CHECK_ONLY=true"},
		{"0", "", false, ""},
		{"false", "1", false, ""},
		{"", "1", true, "DOCS_RS=1"},
		{"1", "1", true, "MLXBUILD_CHECK_ONLY=1"},
	} {
		env := map[string]string{CheckOnlyVar: c.check, DocsRSVar: c.docs}
		on, why, err := CheckOnly(func(k string) string { return env[k] })
		if err != nil || on != c.on || why != c.why {
			t.Errorf("MLXBUILD_CHECK_ONLY=%q DOCS_RS=%q: %v %q %v, want %v %q", c.check, c.docs, on, why, err, c.on, c.why)
		}
	}
	for _, bad := range []string{"yes", "2", "TRUE ", "on"} {
		_, _, err := CheckOnly(func(k string) string {
			if k == CheckOnlyVar {
				return bad
			}
			return ""
		})
		if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "MLXBUILD_CHECK_ONLY=\""+bad+"\"") || strings.Contains(err.Error(), "\n") {
			t.Errorf("MLXBUILD_CHECK_ONLY=%q: %v (exit %d), want one line naming the variable and its value, exit 2", bad, err, fail.ExitCode(err))
		}
	}
}

// FuzzCheckOnly: any value is either one of the four words or a one-line
// usage error naming the variable; none panics.
func FuzzCheckOnly(f *testing.F) {
	for _, s := range []string{"", "1", "0", "true", "false", "yes", "\x00"} {
		f.Add(s, "1")
	}
	f.Fuzz(func(t *testing.T, value, docs string) {
		env := map[string]string{CheckOnlyVar: value, DocsRSVar: docs}
		on, _, err := CheckOnly(func(k string) string { return env[k] })
		switch value {
		case "1", "true":
			if !on || err != nil {
				t.Fatalf("%q: %v %v", value, on, err)
			}
		case "0", "false":
			if on || err != nil {
				t.Fatalf("%q: %v %v", value, on, err)
			}
		case "":
			if on != (docs != "") || err != nil {
				t.Fatalf("DOCS_RS=%q: %v %v", docs, on, err)
			}
		default:
			if fail.ExitCode(err) != 2 || on || !strings.HasPrefix(err.Error(), CheckOnlyVar+"=") {
				t.Fatalf("%q: %v %v", value, on, err)
			}
		}
	})
}
