package backends

import "testing"

func TestParseVersion(t *testing.T) {
	cases := []struct{ in, want string }{
		{"HIP version: 5.2.21153-0\nDebian clang version 15.0.6", "5.2.21153"},
		{"5.2.21153-0", "5.2.21153"},
		{"6.1.2-119\n", "6.1.2"},
		{"cmake version 3.25.1\n\nCMake suite maintained", "3.25.1"},
		{"1.11.1", "1.11.1"},
		{"git version 2.39.5", "2.39.5"},
		{"ccache version 4.7.5\nFeatures: file http redis", "4.7.5"},
		{"12.4.131", "12.4.131"},
	}
	for _, c := range cases {
		v, err := parseVersion(c.in)
		if err != nil {
			t.Errorf("parseVersion(%q): %v", c.in, err)
			continue
		}
		if v.String() != c.want {
			t.Errorf("parseVersion(%q) = %s, want %s", c.in, v, c.want)
		}
	}
	if _, err := parseVersion("no digits here"); err == nil {
		t.Error("parseVersion without a number: want an error")
	}
}
