package jobserver

import (
	"strings"
	"testing"
)

// TestFromMakeflags: Cargo's and make's spellings, the last one winning,
// fifo:PATH, none, and malformed values named in the error.
func TestFromMakeflags(t *testing.T) {
	for _, c := range []struct {
		flags string
		want  Auth
		ok    bool
		err   string
	}{
		{"-j --jobserver-fds=6,7 --jobserver-auth=6,7", Auth{R: 6, W: 7}, true, ""},
		{" -j4 --jobserver-auth=3,4 -- FOO=1", Auth{R: 3, W: 4}, true, ""},
		{"-j --jobserver-fds=3,4 --jobserver-auth=fifo:/tmp/GMfifo1", Auth{R: -1, W: -1, Fifo: "/tmp/GMfifo1"}, true, ""},
		{"-j --jobserver-auth=3,4 --jobserver-auth=5,6", Auth{R: 5, W: 6}, true, ""},
		{"-j4", Auth{}, false, ""},
		{"", Auth{}, false, ""},
		{"--jobserver-auth=3", Auth{}, true, "--jobserver-auth=3: no comma"},
		{"--jobserver-auth=a,4", Auth{}, true, "not a number"},
		{"--jobserver-auth=fifo:", Auth{}, true, "no path"},
		{"--jobserver-fds=-1,4", Auth{}, true, "not a number of 0 or more"},
	} {
		got, ok, err := FromMakeflags(c.flags)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one with %q", c.flags, err, c.err)
			}
			continue
		}
		if err != nil || ok != c.ok || got != c.want {
			t.Errorf("%q: %+v %v %v, want %+v %v", c.flags, got, ok, err, c.want, c.ok)
		}
	}
}

// FuzzFromMakeflags: any value parses without a panic; a jobserver found
// names a fifo with a path or two file descriptors of 0 or more.
func FuzzFromMakeflags(f *testing.F) {
	f.Add("-j --jobserver-fds=6,7 --jobserver-auth=6,7")
	f.Add("--jobserver-auth=fifo:/tmp/x")
	f.Add("--jobserver-auth=,")
	f.Fuzz(func(t *testing.T, flags string) {
		a, ok, err := FromMakeflags(flags)
		if ok && err == nil && a.Fifo == "" && (a.R < 0 || a.W < 0) {
			t.Fatalf("%q: %+v", flags, a)
		}
		if !ok && (err != nil || a != Auth{}) {
			t.Fatalf("%q: none found but %+v %v", flags, a, err)
		}
	})
}
