package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "file", "2 files"},
		{1, "call site", "1 call site"},
		{5, "call site", "5 call sites"},
		{1, "problem", "1 problem"},
		{2, "problem", "2 problems"},
		{3, "dependency", "3 dependencies"},
		{1, "dependency", "1 dependency"},
		{2, "key", "2 keys"},
		{2, "process", "2 processes"},
		{2, "hash", "2 hashes"},
		{2, "patch", "2 patches"},
		{2, "index", "2 indexes"},
		{2, "module cache look-up", "2 module cache look-ups"},
		{-1, "byte", "-1 bytes"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestNoun(t *testing.T) {
	if got := Noun(4, "file"); got != "files" {
		t.Errorf("Noun(4, file) = %q", got)
	}
	if got := Noun(1, "file"); got != "file" {
		t.Errorf("Noun(1, file) = %q", got)
	}
	if got := Of(""); got != "" {
		t.Errorf("Of(\"\") = %q", got)
	}
}
