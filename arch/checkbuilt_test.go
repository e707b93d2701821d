package arch

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestCheckBuiltReadsCMakeLists: a recorded CMake list is compared as
// the code it makes: "90a" is a cubin and PTX for sm_90a, "80-real" a
// cubin only (no sm_86 PTX to JIT from: an sm_89 GPU has none),
// "80-virtual" PTX that any newer GPU compiles; no cuobjdump is asked.
func TestCheckBuiltReadsCMakeLists(t *testing.T) {
	env := func(gpus string) Options {
		return Options{Env: func(k string) string {
			if k == EnvCUDA {
				return gpus
			}
			if k == "PATH" {
				return "/nonexistent" // no cuobjdump, no nvidia-smi
			}
			return ""
		}}
	}
	cases := []struct {
		built []string
		gpus  string
		ok    bool
	}{
		{[]string{"90a"}, "90a", true},
		{[]string{"80-real"}, "89", true}, // same major, higher minor: the cubin runs
		{[]string{"80-real"}, "90a", false},
		{[]string{"80-virtual"}, "90a", true},
		{[]string{"90a"}, "100", false},
	}
	for _, c := range cases {
		rep, err := CheckBuilt(context.Background(), "manifest.json", "cuda", c.built, env(c.gpus))
		var mm *mismatchError
		if c.ok != (err == nil) || (!c.ok && !errors.As(err, &mm)) {
			t.Errorf("built %v on %s: got %v (%v), want ok=%v", c.built, c.gpus, err, rep.Lines, c.ok)
		}
		if err == nil && !strings.Contains(strings.Join(rep.Lines, "\n"), "every GPU has code") {
			t.Errorf("built %v on %s: %v", c.built, c.gpus, rep.Lines)
		}
	}
}
