package fail

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

type alwaysConfig struct{}

func (alwaysConfig) Error() string { return "bad file" }
func (alwaysConfig) Kind() Kind    { return Config }

func TestKindsAndExitCodes(t *testing.T) {
	cases := []struct {
		name string
		err  error
		kind Kind
		code int
	}{
		{"nil", nil, Failure, 0},
		{"plain", errors.New("compile failed"), Failure, 1},
		{"configf", Configf("MLXBUILD_JOBS=%q: give a number", "x"), Config, 2},
		{"wrapped config", fmt.Errorf("loading: %w", Configf("bad")), Config, 2},
		{"a type that is always config", fmt.Errorf("x: %w", alwaysConfig{}), Config, 2},
		{"cancelled", fmt.Errorf("ninja: %w", context.Canceled), Interrupted, 1},
		{"outermost kind wins", AsConfig(fmt.Errorf("arch: %w", &Error{K: Failure, Err: errors.New("x")})), Config, 2},
		{"a fix keeps the kind", WithFix(Configf("bad"), "edit it"), Config, 2},
	}
	for _, c := range cases {
		if c.err != nil {
			if k := KindOf(c.err); k != c.kind {
				t.Errorf("%s: KindOf = %v, want %v", c.name, k, c.kind)
			}
		}
		if code := ExitCode(c.err); code != c.code {
			t.Errorf("%s: ExitCode = %d, want %d", c.name, code, c.code)
		}
	}
	if AsConfig(nil) != nil || WithFix(nil, "x") != nil {
		t.Error("nil must stay nil")
	}
}

func TestMessageSaysTheFixOnce(t *testing.T) {
	inner := WithFix(errors.New("libfoo.so not found"), "install libfoo")
	outer := WithFix(fmt.Errorf("the rocm build failed: %w", inner), "fix the error above, then build again")
	if got, want := Message(outer), "the rocm build failed: libfoo.so not found\nfix the error above, then build again"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if got, want := Message(fmt.Errorf("x: %w", inner)), "x: libfoo.so not found\ninstall libfoo"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if got, want := Message(fmt.Errorf("ninja: %w", context.Canceled)), "interrupted: ninja: context canceled"; got != want {
		t.Errorf("Message = %q, want %q", got, want)
	}
	if Message(nil) != "" {
		t.Error("Message(nil) must be empty")
	}
}

func TestPos(t *testing.T) {
	for _, c := range []struct {
		pos  Pos
		want string
	}{
		{Pos{File: "mlxbuild.yaml", Line: 4, Col: 9}, "mlxbuild.yaml:4:9"},
		{Pos{File: "a.hip", Line: 12}, "a.hip:12"},
		{Pos{File: "configs/rocm.yaml"}, "configs/rocm.yaml"},
		{Pos{}, ""},
	} {
		if got := c.pos.String(); got != c.want {
			t.Errorf("%#v = %q, want %q", c.pos, got, c.want)
		}
	}
}
