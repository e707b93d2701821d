package proc

import (
	"reflect"
	"strings"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	for _, r := range []request{
		{Dir: "/w", Argv: []string{"/usr/bin/ninja", "-C", "b", ""}, Env: []string{"A=1", "B="}},
		{Argv: []string{"/bin/true"}, Env: []string{}}, // an empty environment stays empty
	} {
		data, err := r.encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRequest(data)
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("%+v came back as %+v, %v", r, got, err)
		}
	}
	if _, err := (request{Argv: []string{"/bin/true", "a\x00b"}}).encode(); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("an argument with a NUL encoded: %v", err)
	}
	if _, err := (request{}).encode(); err == nil {
		t.Error("a request without a program encoded")
	}
	if _, err := decodeRequest(nil); err != errNoRequest {
		t.Errorf("empty request: %v, want errNoRequest", err)
	}
	for _, bad := range []string{"/w\x001\x00", "/w\x00x\x00/p\x00", "/w\x003\x00/p\x00", "/w\x001\x00/p", "\x001\x00\x00"} {
		if r, err := decodeRequest([]byte(bad)); err == nil {
			t.Errorf("%q decoded as %+v", bad, r)
		}
	}
}

// FuzzDecodeRequest: the decoder never panics, and whatever it accepts
// encodes back to the same bytes.
func FuzzDecodeRequest(f *testing.F) {
	for _, r := range []request{
		{Dir: "/w", Argv: []string{"/usr/bin/ninja", "-C", "build"}, Env: []string{"PATH=/usr/bin", "HOME=/root"}},
		{Argv: []string{"/bin/true"}},
	} {
		data, _ := r.encode()
		f.Add(data)
	}
	f.Add([]byte("/w\x009999999999\x00/p\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRequest(data)
		if err != nil {
			return
		}
		again, err := r.encode()
		if err != nil || string(again) != string(data) {
			t.Fatalf("%q decoded to %+v, encoded back to %q, %v", data, r, again, err)
		}
	})
}
