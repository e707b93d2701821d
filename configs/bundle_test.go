package configs

import (
	"strings"
	"testing"
)

// TestBundlePolicyRefusesDriverBundled: a spec that lists the driver's
// library to be bundled, or a header folder outside include/, is refused
// at its position; the built-in policies pass and leave the spec's
// fingerprint (the build's input) alone.
func TestBundlePolicyRefusesDriverBundled(t *testing.T) {
	ps := &problems{}
	pos := func(string) Pos { return Pos{File: "cuda.yaml", Line: 3, Col: 5} }
	validateBundle(&BundlePolicy{Libraries: []string{"cuda"}, Driver: []string{"cuda"},
		Headers:    []BundleHeaders{{From: "/x", To: "../etc"}, {Dependency: "cccl", Define: "MLX_CCCL_DIR", To: "include/a"}, {Dependency: "cccl", From: "../up", To: "include/b"}},
		HeaderHome: &HeaderHome{Beside: "/abs", Default: "usr/local/cuda", Sub: "../include"}}, pos, ps)
	msg := ps.err().Error()
	for _, want := range []string{`"cuda" is the driver's library`, `to "../etc" must be a relative folder under include/`,
		"exactly one of from (a directory), define (the MLX define naming one) and dependency", `from "../up" must be a relative folder inside dependency cccl`,
		`sub "../include" must be a relative folder`, `beside "/abs" must be a relative folder`, `default "usr/local/cuda" must be an absolute folder`} {
		if !strings.Contains(msg, want) {
			t.Errorf("want %q in:\n%s", want, msg)
		}
	}
	for _, name := range []string{"rocm", "cuda"} {
		s, err := Builtin(name)
		if err != nil || s.Bundle == nil {
			t.Fatalf("built-in %s has no bundle policy (%v)", name, err)
		}
		fp := s.Fingerprint()
		s2 := *s
		s2.Bundle = nil
		if hashSpec(&s2) != fp {
			t.Errorf("%s: the bundle policy changes the spec's fingerprint: every cache would rebuild", name)
		}
	}
}

// TestBundlePolicyMergesWhole: an override's bundle section replaces the
// built-in one whole (its lists decide together: a name moved out of
// libraries must not come back from the built-in list); an override
// without one keeps the built-in policy.
func TestBundlePolicyMergesWhole(t *testing.T) {
	base, err := Builtin("cuda")
	if err != nil {
		t.Fatal(err)
	}
	kept := Merge(base, &Spec{Backend: "cuda", Source: "over.yaml"})
	if kept.Bundle == nil || len(kept.Bundle.Libraries) != len(base.Bundle.Libraries) {
		t.Fatalf("an override without bundle lost the built-in policy: %+v", kept.Bundle)
	}
	mine := &BundlePolicy{Libraries: []string{"cudart"}, Driver: []string{"cuda"}}
	got := Merge(base, &Spec{Backend: "cuda", Source: "over.yaml", Bundle: mine})
	if got.Bundle == nil || strings.Join(got.Bundle.Libraries, ",") != "cudart" || len(got.Bundle.Headers) != 0 {
		t.Fatalf("the override's bundle did not replace the built-in one: %+v", got.Bundle)
	}
}
